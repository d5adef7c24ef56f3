// The `execute_python` tool of math_with_code, reproducing NeMo Gym's server at commit 07d6b0d: one
// long-lived interpreter per rollout whose state survives between calls; the model's code runs with
// `exec(code, globals, locals)` over the same two dictionaries every call, the globals holding only a
// short list of builtins (print, len, str, int, float, list, dict, tuple, set, min, max, sum, abs,
// range, enumerate, zip, __import__) and numpy/scipy/pandas under their usual names; stdout and
// stderr are captured; SIGALRM stops a call after `max_execution_time` seconds; the last line, when
// it does not start with a statement keyword, is evaluated again and its str() is the `result`.
// A failed call reports only `str(exception)`. Here the interpreter is a sandboxed Python session
// (src/sandbox), the driver below a cell of it.
import type { Sandbox } from "../../sandbox/runner.js";
import { SessionManager } from "../../sandbox/sessions.js";

/** What `/execute_python` answers (NeMo Gym's ExecutePythonResponse, fields in its order). */
export interface ExecutePythonReply {
  success: boolean;
  stdout: string;
  stderr: string;
  error_message: string | null;
  result: string | null;
}

/** Marks the driver's reply line in the cell's stdout. */
const REPLY = "\u0000mwc-reply:";

/**
 * Defines the driver once per interpreter, then runs one call. The model's own output never reaches
 * the cell's stdout except through the captured streams, which travel inside the JSON reply.
 */
const DRIVER = String.raw`
if "_mwc_call" not in globals():
    def _mwc_setup():
        import contextlib, io, json, signal, sys
        import numpy, scipy, pandas
        allowed = {}
        for name in ("print", "len", "str", "int", "float", "list", "dict", "tuple", "set",
                     "min", "max", "sum", "abs", "range", "enumerate", "zip", "__import__"):
            allowed[name] = __builtins__[name] if isinstance(__builtins__, dict) else getattr(__builtins__, name)
        scope = {"__builtins__": allowed, "np": numpy, "numpy": numpy, "scipy": scipy, "pd": pandas, "pandas": pandas}
        local = {}
        skip = ("print", "import", "from", "def", "class", "if", "for", "while", "try", "with")

        def last_value(code):
            lines = code.strip().split("\n")
            tail = lines[-1].strip()
            if tail.startswith(skip):
                return None
            try:
                return str(eval(tail, scope, local))
            except Exception:
                return None

        def on_alarm(signum, frame):
            raise TimeoutError("code timed-out")

        dead = []

        def call(code, seconds):
            out, err = io.StringIO(), io.StringIO()
            if dead:
                # NeMo Gym's worker process has exited: writing to its pipe fails.
                reply = {"ok": False, "error": "[Errno 32] Broken pipe"}
                sys.stdout.write("\n" + MARK + json.dumps(reply) + "\n")
                sys.stdout.flush()
                return
            try:
                signal.signal(signal.SIGALRM, on_alarm)
                signal.alarm(seconds)
                try:
                    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                        exec(code, scope, local)
                        value = last_value(code)
                finally:
                    signal.alarm(0)
                reply = {"ok": True, "stdout": out.getvalue(), "stderr": err.getvalue(), "result": value}
            except Exception as error:
                reply = {"ok": False, "error": str(error)}
            except BaseException:
                # SystemExit and the like end NeMo Gym's worker: the pending call reads EOF (str "").
                dead.append(True)
                reply = {"ok": False, "error": ""}
            sys.stdout.write("\n" + MARK + json.dumps(reply) + "\n")
            sys.stdout.flush()

        return call
    _mwc_call = _mwc_setup()
`;

export interface ExecutorOptions {
  /** NeMo Gym's `max_execution_time` (whole seconds, SIGALRM). */
  maxExecutionSecs: number;
  memoryBytes: number;
  idleMs: number;
  /** The sandbox the interpreters run in (the process-wide one). */
  sandbox: () => Promise<Sandbox>;
}

/** One environment instance's interpreters, by rollout session; made on first use. */
export class PythonExecutor {
  private manager?: Promise<SessionManager>;

  constructor(private readonly options: ExecutorOptions) {}

  private sessions(): Promise<SessionManager> {
    if (!this.manager) {
      const made = this.options.sandbox().then((sandbox) => new SessionManager(sandbox, { idleMs: this.options.idleMs, limits: { memoryBytes: this.options.memoryBytes } }));
      made.catch(() => {
        if (this.manager === made) this.manager = undefined;
      });
      this.manager = made;
    }
    return this.manager;
  }

  async execute(sessionId: string, code: string): Promise<ExecutePythonReply> {
    const seconds = Math.max(0, Math.trunc(this.options.maxExecutionSecs));
    const cell = `${DRIVER.replaceAll("MARK", JSON.stringify(REPLY))}\n_mwc_call(${JSON.stringify(code)}, ${seconds})\n`;
    // The host's own deadline is a backstop for code SIGALRM cannot interrupt (a long C call); the
    // first call of a session also imports numpy, scipy and pandas.
    const backstopMs = (seconds === 0 ? 600 : seconds + 30) * 1000;
    const cellResult = await (await this.sessions()).execute(sessionId, cell, backstopMs);
    const at = cellResult.stdout.lastIndexOf(REPLY);
    if (at >= 0) {
      const line = cellResult.stdout.slice(at + REPLY.length).split("\n", 1)[0]!;
      const reply = JSON.parse(line) as { ok: boolean; stdout?: string; stderr?: string; result?: string | null; error?: string };
      if (reply.ok) return { success: true, stdout: reply.stdout ?? "", stderr: reply.stderr ?? "", error_message: null, result: reply.result ?? null };
      return failure(reply.error ?? "");
    }
    // The interpreter died or was stopped (SystemExit, a crash, a limit): NeMo Gym's worker process
    // would be gone too, and its call fail.
    if (cellResult.status === "timeout") return failure("code timed-out");
    return failure(cellResult.reason ?? (pythonError(cellResult.stderr) || `the interpreter stopped (${cellResult.status})`));
  }

  /** Ends a rollout's interpreter (NeMo Gym does this at /verify and /end_session). */
  async end(sessionId: string): Promise<void> {
    if (this.manager) await (await this.manager).delete(sessionId);
  }

  async close(): Promise<void> {
    const manager = this.manager;
    this.manager = undefined;
    await (await manager?.catch(() => undefined))?.close();
  }
}

function failure(message: string): ExecutePythonReply {
  return { success: false, stdout: "", stderr: "", error_message: message, result: null };
}

/** The last line of a traceback, e.g. `SystemExit: 3`. */
function pythonError(stderr: string): string {
  const lines = stderr.trim().split("\n");
  return lines[lines.length - 1] ?? "";
}
