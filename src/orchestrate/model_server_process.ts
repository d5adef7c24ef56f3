// `gym eval run --model-server-cmd`: an inference server (e.g. `vllm serve …`) that lives exactly as
// long as the run. Start the command, wait until it serves `GET <base>/models`, stop it afterwards.
//
// Why a watchdog process sits between gym and the command: an arbitrary command cannot be told to
// exit with its parent (our own child servers can: they watch the IPC channel, see
// instance_process.ts). So gym starts a tiny Node watchdog over an IPC channel; the watchdog starts
// `bash -c <command>` as the leader of a new process group, and when gym goes away — a normal stop,
// a signal, or even SIGKILL, which closes the channel — it SIGTERMs the whole group (vLLM forks
// engine workers), waits up to 10 s, then SIGKILLs it. Only if the watchdog itself is SIGKILLed
// together with gym (e.g. `kill -9` of gym's whole process group) can the server outlive it; a
// Slurm job end is fine, since Slurm kills every process of the job.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { call, joinUrl, NO_RETRY } from "../http/client.js";
import { sleep } from "../http/timing.js";
import { redactUrl } from "../config/url_secrets.js";
import { ModelUnreachableError } from "./readiness.js";

/** Grace between SIGTERM and SIGKILL of the server's process group. */
export const STOP_GRACE_MS = 10_000;

/**
 * The watchdog, run with `node -e` so it needs no file of its own (works the same from dist/ and
 * under tsx). argv: <command> <grace ms>. Messages to gym: {pid} once started, {exited, code,
 * signal} when bash ends on its own. It exits once the process group is empty.
 */
const WATCHDOG = String.raw`
const { spawn } = require("node:child_process");
const [command, graceText] = process.argv.slice(1);
const grace = Number(graceText);
// detached: bash leads a new process group, so one kill reaches everything the command started, and
// a Ctrl-C meant for gym's terminal group does not hit the server before gym stops it in order.
const child = spawn("bash", ["-c", command], { detached: true, stdio: ["ignore", "inherit", "inherit"] });
const group = (signal) => { try { process.kill(-child.pid, signal); return true; } catch { return false; } };
let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  group("SIGTERM");
  const started = Date.now();
  const poll = setInterval(() => {
    if (!group(0)) { clearInterval(poll); process.exit(0); }
    if (Date.now() - started > grace) group("SIGKILL");
  }, 100);
}
child.on("error", (error) => { process.send?.({ exited: true, code: null, signal: null, error: error.message }); stop(); });
child.on("exit", (code, signal) => { if (!stopping) process.send?.({ exited: true, code, signal }); stop(); });
process.send?.({ pid: child.pid });
// Readable in ps (instead of this whole script) and not matched by a pattern from the command.
process.title = "gym-model-server-watchdog (process group " + child.pid + ")";
for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, stop);
// The channel closes when gym exits or is killed, even by SIGKILL: never outlive it.
process.on("disconnect", stop);
`;

export interface ModelServerOptions {
  /** The shell command; `{port}` is replaced by `port`. */
  command: string;
  port: number;
  /** What to poll: `<baseUrl>/models`. */
  baseUrl: string;
  readyTimeoutMs: number;
  logPath: string;
  /** Told when the server dies after it was ready (rollouts will then fail with connection errors). */
  onNotice?: (message: string) => void;
  /** Told, with what happened ("was killed by SIGKILL"), when the server ends by itself after it was ready. */
  onDied?: (description: string) => void;
}

export interface ModelServer {
  logPath: string;
  /** Resolves once `GET <base>/models` answers 200; otherwise stops the server and throws why. */
  ready(): Promise<void>;
  /** SIGTERM to the process group, SIGKILL after 10 s; resolves when nothing of it remains. */
  stop(): Promise<void>;
}

interface Exit {
  code: number | null;
  signal: string | null;
  error?: string;
}

export function expandCommand(command: string, port: number): string {
  return command.replaceAll("{port}", String(port));
}

/**
 * Starts the command now; the handle comes back at once so that a signal while it is still
 * loading (minutes, for vLLM) stops it too.
 */
export function launchModelServer(options: ModelServerOptions): ModelServer {
  const command = expandCommand(options.command, options.port);
  // The log is appended to (a --resume run keeps the earlier one); the tail shown on failure is
  // read from where this run starts.
  mkdirSync(dirname(options.logPath), { recursive: true });
  const log = openSync(options.logPath, "a");
  const from = statSync(options.logPath).size;
  writeSync(log, `# gym: ${new Date().toISOString()} starting: ${command}\n`);
  let watchdog: ChildProcess;
  try {
    watchdog = spawn(process.execPath, ["-e", WATCHDOG, command, String(STOP_GRACE_MS)], { stdio: ["ignore", log, log, "ipc"] });
  } finally {
    closeSync(log);
  }
  const gone = new Promise<void>((resolve) => watchdog.once("exit", () => resolve()));
  let pid = 0;
  let exited: Exit | undefined;
  let isReady = false;
  watchdog.on("message", (message: { pid?: number; exited?: boolean } & Exit) => {
    if (message.pid) pid = message.pid;
    if (message.exited) {
      exited = message;
      if (isReady) {
        options.onNotice?.(`the model server ${describeExit(message)} during the run; see ${options.logPath}`);
        options.onDied?.(describeExit(message));
      }
    }
  });
  watchdog.once("exit", (code, signal) => {
    exited ??= { code, signal, error: "its watchdog process ended" };
  });
  // A gym that exits without stopping it (process.exit elsewhere) still signals the group at once;
  // the watchdog, seeing the channel close, escalates to SIGKILL.
  const onExit = () => {
    if (!pid) return;
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      // already gone
    }
  };
  process.once("exit", onExit);

  const stop = async () => {
    process.off("exit", onExit);
    if (watchdog.exitCode === null && watchdog.signalCode === null) watchdog.kill("SIGTERM");
    await gone;
  };

  const ready = async () => {
    const url = joinUrl(options.baseUrl, "/models");
    const deadline = Date.now() + options.readyTimeoutMs;
    const what = `--model-server-cmd ${JSON.stringify(command)}`;
    for (;;) {
      if (exited) {
        await stop();
        throw new ModelUnreachableError(`${what} ${describeExit(exited)} before it served ${redactUrl(url)}.${tail(options.logPath, from)}`);
      }
      try {
        const result = await call(url, { timeoutMs: 5_000, retry: NO_RETRY });
        if (result.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() >= deadline) {
        await stop();
        throw new ModelUnreachableError(
          `${what} was not ready within ${Math.round(options.readyTimeoutMs / 1000)} s (GET ${redactUrl(url)} did not answer 200), so it was stopped; ` +
            `raise --model-server-ready-timeout if it was still loading.${tail(options.logPath, from)}`,
        );
      }
      await sleep(500);
    }
    isReady = true;
  };
  return { logPath: options.logPath, ready, stop };
}

function describeExit(exit: Exit): string {
  if (exit.error) return `could not run (${exit.error})`;
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** The last lines this run wrote to the log, indented under the paragraph. */
function tail(path: string, from: number, lines = 20): string {
  let text: string;
  try {
    text = readFileSync(path).subarray(from).toString("utf8");
  } catch {
    return "";
  }
  const last = text.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("# gym: ")).slice(-lines);
  return last.length === 0 ? ` It printed nothing (log: ${path}).` : ` Last ${last.length} line(s) of ${path}:\n${last.map((l) => `  ${l}`).join("\n")}`;
}
