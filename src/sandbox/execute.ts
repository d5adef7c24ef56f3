// One run in one slot, start to finish: launch, feed stdin, capture capped output, enforce the wall
// deadline, settle when the program exits (plus a short drain: a straggler holding the pipe open
// must not hang us), kill whatever is left, classify.
import { classify, signalFromExitCode } from "./classify.js";
import { CappedCapture } from "./capture.js";
import { launch, type Machine, type Slot } from "./launch.js";
import { checkScratchPath } from "./bwrap.js";
import { cpuSeconds, cutMarker, resolveLimits, type RunRequest, type RunResult } from "./types.js";
import { sleep } from "../http/timing.js";

/** How long output may keep arriving after the program exited before we stop listening. */
const DRAIN_MS = 300;

export async function executeInSlot(machine: Machine, slot: Slot, request: RunRequest): Promise<RunResult> {
  const started = performance.now();
  const base = { exitCode: null, signal: null, stdout: "", stderr: "", cpuMs: null, isolation: machine.isolation };
  const invalid = requestProblem(request);
  if (invalid) return { ...base, status: "sandbox_error", wallMs: 0, reason: invalid };
  const limits = resolveLimits(request.limits);
  const before = slot.cgroup?.counters();

  let launched;
  try {
    launched = launch(machine, slot, { argv: request.argv, files: request.files ?? {}, limits, env: request.env ?? {} });
  } catch (error) {
    return { ...base, status: "sandbox_error", wallMs: performance.now() - started, reason: `cannot start: ${(error as Error).message}` };
  }
  const { child } = launched;

  let timedOut = false;
  let outputLimited: "stdout" | "stderr" | null = null;
  let aborted = false;
  const stop = () => launched.kill();
  const stdout = new CappedCapture(limits.stdoutBytes, () => {
    outputLimited ??= "stdout";
    stop();
  }, request.onStdout);
  const stderr = new CappedCapture(limits.stderrBytes, () => {
    outputLimited ??= "stderr";
    stop();
  });
  stdout.attach(launched.stdout);
  stderr.attach(launched.stderr);

  const deadline = setTimeout(() => {
    timedOut = true;
    stop();
  }, limits.wallMs);
  const onAbort = () => {
    aborted = true;
    stop();
  };
  if (request.signal?.aborted) onAbort();
  request.signal?.addEventListener("abort", onAbort);

  launched.stdin.end(request.stdin ?? "");

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError?: Error }>((resolve) => {
    child.once("error", (error) => resolve({ code: null, signal: null, spawnError: error }));
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const wallMs = performance.now() - started;
  clearTimeout(deadline);
  request.signal?.removeEventListener("abort", onAbort);

  // Anything left (a daemon, a leaked child holding the pipe) dies now, then the pipes get a short drain.
  const clean = await launched.cleanUp();
  await drain([launched.stdout, launched.stderr], DRAIN_MS);
  // The status pipe closes with bwrap, which has exited; the fallback only guards against a stuck pipe.
  const status = await Promise.race([launched.bwrapStatus, sleep(1000, { unref: true }).then(() => ({ started: true, exitCode: null }))]);

  const after = slot.cgroup?.counters();
  const cpuMs = before?.cpuNs != null && after?.cpuNs != null ? (after.cpuNs - before.cpuNs) / 1e6 : null;
  const oomKilled = before !== undefined && after !== undefined && after.oomKills > before.oomKills;

  let exitCode = exit.code;
  let signal: string | null = exit.signal;
  let setupError: string | undefined;
  const stderrText = stderr.text();
  if (exit.spawnError) setupError = `cannot start the sandbox: ${exit.spawnError.message}`;
  else if (machine.bwrap) {
    if (status.exitCode !== null) {
      exitCode = status.exitCode;
      signal = signalFromExitCode(status.exitCode);
      if (signal) exitCode = null;
    } else if (!status.started && !timedOut && !outputLimited && !aborted) {
      setupError = `the sandbox did not start: ${stderrText.trim().slice(-500) || `bwrap exited with ${exit.code ?? exit.signal}`}`;
    }
  }
  if (!clean) setupError ??= "processes of the run survived SIGKILL";

  const verdict = classify({
    setupError,
    timedOut,
    outputLimited,
    exitCode,
    signal,
    oomKilled,
    addressSpaceLimited: slot.cgroup === null,
    stderr: stderrText,
    wallMs: limits.wallMs,
    cpuSeconds: cpuSeconds(limits),
    cpuMs,
    measuredWallMs: wallMs,
    memoryBytes: limits.memoryBytes,
    fileBytes: limits.fileBytes,
    outputCapBytes: outputLimited === "stdout" ? limits.stdoutBytes : outputLimited === "stderr" ? limits.stderrBytes : undefined,
  });
  // The stream that passed its cap shows where it was cut (a streamed stdout has it in `reason` only).
  return {
    status: verdict.status,
    exitCode,
    signal,
    stdout: outputLimited === "stdout" && !request.onStdout ? stdout.text() + cutMarker(limits.stdoutBytes) : stdout.text(),
    stderr: outputLimited === "stderr" ? stderrText + cutMarker(limits.stderrBytes) : stderrText,
    cpuMs,
    wallMs,
    isolation: machine.isolation,
    ...(verdict.reason ? { reason: verdict.reason } : {}),
    ...(aborted ? { aborted: true } : {}),
  };
}

function requestProblem(request: RunRequest): string | null {
  if (!Array.isArray(request.argv) || request.argv.length === 0 || request.argv.some((a) => typeof a !== "string" || a.includes("\0"))) {
    return "argv must be a non-empty list of strings without NUL";
  }
  for (const path of Object.keys(request.files ?? {})) {
    const problem = checkScratchPath(path);
    if (problem) return `file path "${path}" ${problem}`;
  }
  return null;
}

/** Waits until every stream has closed, or `ms` have passed; then stops listening to them. */
async function drain(streams: NodeJS.ReadableStream[], ms: number): Promise<void> {
  const closed = streams.map(
    (stream) =>
      new Promise<void>((resolve) => {
        const s = stream as NodeJS.ReadableStream & { closed?: boolean; destroyed?: boolean };
        if (s.closed || s.destroyed) return resolve();
        stream.once("close", () => resolve());
      }),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(closed), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
  for (const stream of streams) (stream as unknown as { destroy(): void }).destroy();
}
