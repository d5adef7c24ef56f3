// `gym sandbox exec` (run one file, print the JSON result) and `gym sandbox serve` (the HTTP
// /execute service, compatible with NeMo-Skills' sandbox).
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { listen } from "../http/server.js";
import { isLanguage, programFor, type Language } from "../sandbox/languages.js";
import { Sandbox } from "../sandbox/runner.js";
import { buildSandboxService } from "../sandbox/service.js";
import { checkReadableFile, fileErrorFrom, isFsError } from "../config/file_errors.js";
import { UsageError } from "./exit.js";

interface ExecOptions {
  lang?: string;
  stdin?: string;
  timeout: string;
}

interface ServeOptions {
  host: string;
  port: string;
  concurrency?: string;
  maxSessions?: string;
  sessionIdle: string;
}

function positiveNumber(flag: string, value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new UsageError(`${flag} must be a positive number, got ${value}`);
  return number;
}

function optionalInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new UsageError(`${flag} must be a positive integer, got ${value}`);
  return number;
}

function readInput(path: string, what: string): string {
  // Checked first: reading a FIFO would block, and a folder or /proc/self/mem fails with a bare errno.
  checkReadableFile(path, `${what} ${path}`);
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if (isFsError(error)) throw fileErrorFrom(error, "read", `${what} ${path}`);
    throw error;
  }
}

export async function sandboxExec(file: string, options: ExecOptions): Promise<void> {
  const language: string = options.lang ?? (extname(file) === ".sh" ? "shell" : "python");
  if (!isLanguage(language)) throw new UsageError(`--lang must be python, shell or ipython, got ${language}`);
  const timeoutS = positiveNumber("--timeout", options.timeout);
  const code = readInput(file, "the program");
  const stdin = options.stdin === undefined ? "" : readInput(options.stdin, "--stdin");
  const sandbox = await Sandbox.create({ concurrency: 1, maxSessions: 1 });
  const result = await sandbox.run({ ...programFor(language as Language, code), stdin, limits: { wallMs: timeoutS * 1000 } });
  await sandbox.close();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.exitCode = result.status === "ok" ? 0 : 1;
}

export async function sandboxServe(options: ServeOptions): Promise<void> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got ${options.port}`);
  const sandbox = await Sandbox.create({
    concurrency: optionalInteger("--concurrency", options.concurrency),
    maxSessions: optionalInteger("--max-sessions", options.maxSessions),
  });
  const { app } = await buildSandboxService({ sandbox, sessionIdleMs: positiveNumber("--session-idle", options.sessionIdle) * 1000 });
  const url = await listen(app, { host: options.host, port });
  process.stdout.write(`sandbox service: ${url}  (isolation ${sandbox.isolation}, ${sandbox.concurrency} at once; Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.stderr.write(`gym: ${signal}: stopping the sandbox service\n`);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await app.close();
  await sandbox.close();
  process.exit(0);
}
