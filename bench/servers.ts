// `npm run bench -- servers [--connections 2000] [--slow 500] [--timeout-s 10] [--samples 100]`
// Hostile load on a running `gym env start` (one process; the fake engine in its own process), side by
// side with the same server unloaded: the latency of a good rollout (`POST /run` on the agent: seed,
// two model calls, a tool call, verify) and the server's RSS
//   1. with nothing else open (the baseline);
//   2. with `--connections` idle keep-alive connections open (each made one `GET /` first);
//   3. with `--slow` slow-loris clients (headers and one byte of a body announced as 1,000 bytes, then
//      nothing): are they cut (408) once the request deadline passes, and when;
//   4. after a 600 MB upload streamed to `/run` (413 at the limit, time to the answer).
// The server runs with GYM_REQUEST_TIMEOUT_S=--timeout-s (default 10, so the run is short; the
// product default is 60 s).
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { connect, type Socket } from "node:net";
import { freePort } from "../src/orchestrate/start.js";
import { GYM, REPO_ROOT } from "../test/helpers/cli.js";
import { jsonBodyOf, median, rawRequest, rssMb, slowClient, weatherRow } from "../test/helpers/hostile.js";
import { machineLine, markdownTable } from "./machine.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const ROW = weatherRow();

export function stdoutUntil(child: ChildProcess, marker: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes(marker)) resolve(out);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before "${marker}": ${out.slice(-2000)}`)));
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

export const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

/** `samples` good rollouts one after another: their latencies in ms. */
async function goodRollouts(agent: string, samples: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const reply = await rawRequest(`${agent}/run`, { body: JSON.stringify(ROW) });
    if (reply.status !== 200) throw new Error(`a good /run got ${reply.status}: ${reply.text.slice(0, 300)}`);
    times.push(performance.now() - started);
  }
  return times;
}

/** An idle keep-alive connection that has made one request. */
function idleConnection(url: string): Promise<Socket> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => socket.write(`GET / HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`));
    socket.once("data", () => resolve(socket));
    socket.once("error", reject);
  });
}

export default async function main(): Promise<void> {
  const connections = Number(arg("connections", "2000"));
  const slowCount = Number(arg("slow", "500"));
  const timeoutS = Number(arg("timeout-s", "10"));
  const samples = Number(arg("samples", "100"));

  const engine = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "bench", "fake_engine_process.ts")], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const engineUrl = await new Promise<string>((resolve) => engine.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())));
  const headPort = await freePort();
  const server = spawn(
    process.execPath,
    [GYM, "env", "start", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engineUrl, "--model", "m", "--head-port", String(headPort)],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, GYM_REQUEST_TIMEOUT_S: String(timeoutS) } },
  );
  await stdoutUntil(server, "head server:");
  const instances = (await (await fetch(`http://127.0.0.1:${headPort}/server_instances`)).json()) as Array<{ process_name: string; url: string }>;
  const agent = instances.find((i) => i.process_name === "example_single_tool_call_simple_agent")!.url;
  const pid = server.pid!;

  const rows: Array<Array<string | number>> = [];
  let baseline = 0;
  const measure = async (scenario: string, open: number, note: string) => {
    const times = await goodRollouts(agent, samples);
    const p50 = median(times);
    if (!baseline) baseline = p50;
    rows.push([scenario, open, p50.toFixed(1), percentile(times, 95).toFixed(1), (p50 / baseline).toFixed(2), rssMb(pid).toFixed(0), note]);
  };

  await goodRollouts(agent, 50); // warm-up
  await measure("baseline", 0, "");

  const idle: Socket[] = [];
  for (let i = 0; i < connections; i += 100) idle.push(...(await Promise.all(Array.from({ length: Math.min(100, connections - i) }, () => idleConnection(agent)))));
  let dropped = 0;
  idle.forEach((s) => s.once("close", () => dropped++));
  await measure("idle keep-alive connections", idle.length, "");
  rows.at(-1)![6] = `${idle.length - dropped} of ${idle.length} still open after the samples`;
  idle.forEach((s) => s.destroy());
  await new Promise((r) => setTimeout(r, 1_000));

  const opened = performance.now();
  const slow = Array.from({ length: slowCount }, () => slowClient(agent, { path: "/run" }));
  const cutAt: number[] = [];
  const answers = slow.map((s) => s.closed.then((first) => (cutAt.push(performance.now() - opened), first)));
  await new Promise((r) => setTimeout(r, 500));
  await measure("slow-loris clients (while open)", slowCount, "");
  const firsts = await Promise.all(answers);
  const cut408 = firsts.filter((f) => f.startsWith("HTTP/1.1 408")).length;
  rows.push([
    "slow-loris clients: cut",
    slowCount,
    "",
    "",
    "",
    rssMb(pid).toFixed(0),
    `${cut408} answered 408, all closed ${(Math.min(...cutAt) / 1000).toFixed(1)}–${(Math.max(...cutAt) / 1000).toFixed(1)} s after opening (deadline ${timeoutS} s)`,
  ]);

  const uploadStart = performance.now();
  const upload = await rawRequest(`${agent}/run`, { body: jsonBodyOf(600 * 1024 * 1024) });
  const uploadMs = performance.now() - uploadStart;
  await measure("after a 600 MB upload", 0, `${upload.status} after ${uploadMs.toFixed(0)} ms, ${(upload.sent / 2 ** 20).toFixed(0)} MiB sent by then`);
  // The machine is shared and noisy: the baseline again, to show how far apart two calm measurements are.
  await measure("baseline, again", 0, "");

  await stop(server);
  await stop(engine);
  process.stdout.write(`${machineLine()}\n\n`);
  process.stdout.write(
    `${markdownTable(["scenario", "connections", "good /run p50 ms", "p95 ms", "p50 / baseline", "server RSS MB", "what happened"], rows)}\n`,
  );
}
