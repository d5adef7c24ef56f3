// The final answer of a python_tool rollout and how it is scored: the content of the last \boxed{}
// against the expected answer, by the math verifier (math-verify semantics: 405.0 = 405,
// \frac{1}{2} = 0.5), which runs in worker threads under a deadline, never on the event loop.
import { MathVerifierPool } from "../../verifiers/math/pool.js";

/** The content of the last `\boxed{…}` (or `\fbox{…}`) in `text`, braces balanced; null if none. */
export function lastBoxed(text: string): string | null {
  const at = Math.max(text.lastIndexOf("\\boxed"), text.lastIndexOf("\\fbox"));
  if (at < 0) return null;
  let i = text.indexOf("{", at);
  const command = text.startsWith("\\boxed", at) ? "\\boxed" : "\\fbox";
  if (i < 0 || text.slice(at + command.length, i).trim() !== "") {
    // `\boxed 42`: the token after the space.
    const bare = /^\s+([^\s$]+)/.exec(text.slice(at + command.length));
    return bare ? bare[1]! : null;
  }
  const start = ++i;
  for (let depth = 1; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(start, i);
  }
  return null;
}

let pool: MathVerifierPool | null = null;

/** 1.0 when the extracted answer is mathematically the expected one, else 0.0. */
export async function scoreAnswer(extracted: string | null, expected: string): Promise<number> {
  if (extracted === null) return 0.0;
  pool ??= new MathVerifierPool();
  // Only the final boxed answer is judged, not other numbers elsewhere in the text.
  const verdict = await pool.verify(expected, `\\boxed{${extracted}}`);
  return verdict.reward;
}
