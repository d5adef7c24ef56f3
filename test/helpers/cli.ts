// Runs the built `gym` binary (dist/cli/main.js) the way a user would, capturing its output.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

export const REPO_ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
export const GYM = join(REPO_ROOT, "dist", "cli", "main.js");
/** NeMo Gym's example data files, copied into the repository (see its README), so a clone alone passes. */
export const NEMO_GYM_EXAMPLES = join(REPO_ROOT, "test", "fixtures", "nemo-gym-examples");

export interface GymResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function startGym(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  return spawn(process.execPath, [GYM, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export function runGym(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<GymResult> {
  const child = startGym(args, options);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Waits until `predicate(output so far)` holds on the child's stdout, or fails after `timeoutMs`. */
export function waitForOutput(child: ChildProcess, predicate: (text: string) => boolean, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    let errText = "";
    const timer = setTimeout(() => reject(new Error(`timed out waiting for output; stdout: ${text}\nstderr: ${errText}`)), timeoutMs);
    child.stderr?.on("data", (d: Buffer) => (errText += d.toString()));
    child.stdout!.on("data", (d: Buffer) => {
      text += d.toString();
      if (predicate(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gym exited (${code}) before the expected output; stdout: ${text}\nstderr: ${errText}`));
    });
  });
}

/** The head server's URL as `gym env start` prints it ("head server: URL"). */
export function headUrlIn(text: string): string {
  const url = /head server: (http:\/\/\S+)/.exec(text)?.[1];
  if (url === undefined) throw new Error(`no "head server:" line in: ${text}`);
  return url;
}

/**
 * Sends `signal` and waits for the child to exit. A child that already exited resolves at once: an
 * early exit (a failed start) must surface as the test's own error, not hang its clean-up waiting for
 * an exit event that has passed. A child still there after `graceMs` is killed and the wait fails.
 */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", graceMs = 60_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const gone = () => ({ code: child.exitCode, signal: child.signalCode });
  if (child.exitCode !== null || child.signalCode !== null) return gone();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, sig) => resolve({ code, signal: sig })));
  child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`pid ${child.pid} did not exit within ${graceMs / 1000} s of ${signal}`));
    }, graceMs);
  });
  try {
    return await Promise.race([exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The JSON objects of a JSONL file (an absent file reads as none). */
export function readJsonlFile(path: string): Array<Record<string, any>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** Whether a process with this pid still exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
