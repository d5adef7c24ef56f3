// How NeMo Gym's ifbench server (07d6b0d, app.py) scores a response against a row's instructions:
// strictly on the response itself, and loosely on any of eight variants of it (asterisks removed,
// first and/or last line dropped); an empty response follows nothing; a checker that raises, or an
// instruction id IFBench does not know, counts as not followed.
import { pyStrip } from "../../verifiers/text/pystr.js";
import { CHECKERS, NOT_PORTED } from "./checkers.js";

/** The eight texts loose scoring tries, the response itself first. */
export function looseVariants(response: string): string[] {
  const lines = response.split("\n");
  const noFirst = pyStrip(lines.slice(1).join("\n"));
  const noLast = pyStrip(lines.slice(0, -1).join("\n"));
  const noBoth = pyStrip(lines.slice(1, -1).join("\n"));
  const unstar = (s: string) => s.split("*").join("");
  return [response, unstar(response), noFirst, noLast, noBoth, unstar(noFirst), unstar(noLast), unstar(noBoth)];
}

export class NotPortedError extends Error {
  override name = "NotPortedError";
}

/** One instruction: [strict, loose]. */
export function checkInstruction(instructionId: string, kwargs: unknown, response: string): [boolean, boolean] {
  if (NOT_PORTED.includes(instructionId)) {
    throw new NotPortedError(`IFBench instruction "${instructionId}" is not reproduced by Gymkit yet; refusing to score it rather than guess`);
  }
  const checker = Object.hasOwn(CHECKERS, instructionId) ? CHECKERS[instructionId] : undefined;
  if (!checker) return [false, false];
  let check: (value: string) => boolean;
  try {
    if (kwargs !== null && kwargs !== undefined && (typeof kwargs !== "object" || Array.isArray(kwargs))) throw new Error("kwargs is not a mapping");
    const given = Object.fromEntries(Object.entries((kwargs ?? {}) as Record<string, unknown>).filter(([, v]) => v !== null));
    if (checker.accepts !== "any") {
      const accepted = checker.accepts;
      const unexpected = Object.keys(given).filter((k) => !accepted.includes(k));
      if (unexpected.length > 0) throw new Error(`build_description() got an unexpected keyword argument '${unexpected[0]}'`);
    }
    check = checker.build(given);
  } catch {
    return [false, false];
  }
  let strict = false;
  let loose = false;
  const variants = looseVariants(response);
  for (let i = 0; i < variants.length; i++) {
    const variant = variants[i]!;
    if (!pyStrip(variant)) continue;
    let follows: boolean;
    try {
      follows = Boolean(check(variant));
    } catch {
      follows = false;
    }
    if (i === 0) strict = follows;
    if (follows) {
      loose = true;
      break;
    }
  }
  return [strict, loose];
}

/** Every instruction of the row (pairs up to the shorter list, as Python's zip). */
export function checkInstructions(ids: readonly string[], kwargsList: readonly unknown[], response: string): { strict: boolean[]; loose: boolean[] } {
  const n = Math.min(ids.length, kwargsList.length);
  if (!pyStrip(response)) return { strict: Array<boolean>(n).fill(false), loose: Array<boolean>(n).fill(false) };
  const strict: boolean[] = [];
  const loose: boolean[] = [];
  for (let i = 0; i < n; i++) {
    const [s, l] = checkInstruction(ids[i]!, kwargsList[i], response);
    strict.push(s);
    loose.push(l);
  }
  return { strict, loose };
}

export function rewardOf(follows: readonly boolean[], mode: "binary" | "fraction"): number {
  if (mode === "binary") return follows.every(Boolean) ? 1.0 : 0.0;
  return follows.length > 0 ? follows.filter(Boolean).length / follows.length : 0.0;
}
