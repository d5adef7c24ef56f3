// math_with_code: competition math with a Python tool (NeMo Gym's math_with_code, matched at commit
// 07d6b0d). The model calls `execute_python` (numpy, scipy and pandas preloaded; state kept for the
// rollout; see executor.ts) and ends with `\boxed{answer}`. /verify takes the last box of the latest
// assistant message that has one, else of the latest tool output's stdout, and rewards 1.0 when it
// matches `expected_result` (answer.ts). Verify ends the rollout's interpreter.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { sharedSandbox } from "../../sandbox/shared.js";
import { answersMatch, lastBoxedAnswer } from "./answer.js";
import { PythonExecutor } from "./executor.js";

const Config = z.strictObject({
  /** Seconds one `execute_python` call may run (NeMo Gym's SIGALRM, whole seconds; 0 = none). */
  max_execution_time: z.number().int().nonnegative().default(10),
  /** Gymkit's: memory of one rollout's interpreter. */
  memory_limit_mb: z.number().int().positive().default(2048),
  /** Gymkit's: an interpreter idle this long is closed (a rollout that never reached /verify). */
  session_idle_secs: z.number().positive().default(600),
});
type Config = z.infer<typeof Config>;

type Item = Record<string, unknown>;

/** The last box of the latest assistant message holding one; then of the latest tool stdout. */
export function extractAnswer(output: readonly Item[]): string | null {
  for (const item of [...output].reverse()) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    let text = "";
    for (const part of (item.content as Item[] | undefined) ?? []) if (part.type === "output_text") text += String(part.text ?? "");
    const found = lastBoxedAnswer(text);
    if (found !== null) return found;
  }
  for (const item of [...output].reverse()) {
    if (item.type !== "function_call_output") continue;
    const found = lastBoxedAnswer(toolStdout(String(item.output ?? "")));
    if (found !== null) return found;
  }
  return null;
}

/** A tool output's `stdout` when it is a JSON object ("" if it has none), else the raw text. */
function toolStdout(raw: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return raw;
  const stdout = (parsed as Item).stdout;
  return stdout === undefined ? "" : String(stdout);
}

export default defineEnvironment({
  id: "math_with_code",
  description: "Competition math with a stateful Python tool (numpy, scipy, pandas); reward 1 when the last \\boxed{} matches expected_result.",
  configSchema: Config as z.ZodType<Config>,
  rowFields: {
    expected_result: z.string(),
    expected_code_contains: z.string().default(""),
  },
  // /verify reads only the response and the row (it just ends the session): rollouts re-score later.
  reverifyMode: "stateless",
  setup: ({ config }) =>
    new PythonExecutor({ maxExecutionSecs: config.max_execution_time, memoryBytes: config.memory_limit_mb * 1024 * 1024, idleMs: config.session_idle_secs * 1000, sandbox: sharedSandbox }),
  teardown: (executor) => executor.close(),
  tools: {
    execute_python: {
      description: "Execute Python code (numpy, scipy and pandas available); variables persist between calls of this conversation.",
      args: z.object({ code: z.string() }),
      handler: ({ code }, ctx) => ctx.resources.execute(ctx.sessionId, code),
    },
    end_session: {
      description: "End this conversation's Python interpreter.",
      args: z.object({}),
      handler: async (_args, ctx) => {
        await ctx.resources.end(ctx.sessionId);
        return { success: true, stdout: "", stderr: "", error_message: null, result: null };
      },
    },
  },
  verify: async (request, ctx) => {
    try {
      const extracted = extractAnswer(request.response.output as Item[]);
      const accuracy = answersMatch(extracted, request.expected_result);
      return { reward: accuracy ? 1.0 : 0.0, extracted_answer: extracted, accuracy };
    } finally {
      await ctx.resources.end(ctx.sessionId);
    }
  },
});
