// python_tool: math problems the model may solve by running Python. The `run_python` tool executes
// code in the sandbox — by default in a stateful session per rollout, so variables survive between
// calls — and answers in NeMo-Skills' sandbox format. The rollout is scored on the final \boxed{}
// answer with the math verifier (see answer.ts).
import { z } from "zod";
import { outputText } from "../../protocol/responses.js";
import { programFor } from "../../sandbox/languages.js";
import { executeReply } from "../../sandbox/service.js";
import { SessionManager } from "../../sandbox/sessions.js";
import { sharedSandbox } from "../../sandbox/shared.js";
import type { RunStatus } from "../../sandbox/types.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { lastBoxed, scoreAnswer } from "./answer.js";

const Config = z.strictObject({
  /** Wall-clock limit of one run_python call. */
  timeout_secs: z.number().positive().default(10),
  /** Characters of stdout/stderr shown to the model (the rest becomes "<output cut>"). */
  max_output_characters: z.number().int().positive().default(1000),
  /** Keep one interpreter per rollout, so state carries over between calls. */
  stateful: z.boolean().default(true),
  memory_limit_mb: z.number().int().positive().default(1024),
  /** A rollout's interpreter idle this long is closed (a rollout that never reaches /verify). */
  session_idle_secs: z.number().positive().default(600),
});
type Config = z.infer<typeof Config>;

/** One instance's interpreters: a session manager made on first use (only stateful runs need one). */
class Interpreters {
  private manager?: Promise<SessionManager>;

  constructor(private readonly config: Config) {}

  get started(): boolean {
    return this.manager !== undefined;
  }

  sessions(): Promise<SessionManager> {
    if (!this.manager) {
      const made = sharedSandbox().then(
        (sandbox) =>
          new SessionManager(sandbox, {
            idleMs: this.config.session_idle_secs * 1000,
            limits: { memoryBytes: this.config.memory_limit_mb * 1024 * 1024 },
          }),
      );
      // A failed start (e.g. no isolation on this machine) is retried by the next call.
      made.catch(() => {
        if (this.manager === made) this.manager = undefined;
      });
      this.manager = made;
    }
    return this.manager;
  }

  async close(): Promise<void> {
    const manager = this.manager;
    this.manager = undefined;
    await (await manager?.catch(() => undefined))?.close();
  }
}

async function runPython(code: string, sessionId: string, interpreters: Interpreters, config: Config): Promise<{ status: RunStatus; stdout: string; stderr: string; reason?: string; warning?: string }> {
  const timeoutMs = config.timeout_secs * 1000;
  if (config.stateful) return (await interpreters.sessions()).execute(sessionId, code, timeoutMs);
  const sandbox = await sharedSandbox();
  const result = await sandbox.run({ ...programFor("ipython", code), limits: { wallMs: timeoutMs, memoryBytes: config.memory_limit_mb * 1024 * 1024 } });
  if (result.status === "sandbox_error") throw new Error(`sandbox error: ${result.reason}`);
  return result;
}

export default defineEnvironment({
  id: "python_tool",
  description: "Math with a sandboxed Python tool; scored on the final \\boxed{} answer.",
  configSchema: Config as z.ZodType<Config>,
  rowFields: {
    expected_answer: z.union([z.string(), z.number()]),
  },
  setup: ({ config }) => new Interpreters(config),
  teardown: (interpreters) => interpreters.close(),
  tools: {
    run_python: {
      description:
        "Run Python 3 code in a sandbox (no network) and get its stdout and stderr. The value of a final expression is printed. " +
        "Variables and imports persist between calls within this conversation.",
      args: z.object({ code: z.string().describe("The Python code to run.") }),
      handler: async ({ code }, ctx) => {
        // The same reply as the /execute service: a limit kill or a restarted session is said on stderr.
        return executeReply(await runPython(code, ctx.sessionId, ctx.resources, ctx.config), ctx.config.max_output_characters);
      },
    },
  },
  // As NeMo Gym's nearest, ns_tools, whose verify response allows extra fields: the row comes back whole.
  verifyEchoes: "all",
  verify: async (request, ctx) => {
    // The rollout is over: its interpreter can go (if it had one).
    if (ctx.config.stateful && ctx.resources.started) await (await ctx.resources.sessions()).delete(ctx.sessionId);
    const expected = String(request.expected_answer);
    const extracted = lastBoxed(outputText(request.response));
    return { reward: await scoreAnswer(extracted, expected), extracted_answer: extracted };
  },
});
