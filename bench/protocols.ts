// `npm run bench -- protocols [--sessions 2048,4096] [--samples 200]`
// Concurrent OpenEnv WebSocket sessions held by one `gym env start --protocols openenv` process
// (example_single_tool_call; the fake engine in its own process, unused by the episodes): for each
// level, every session is opened and reset on a row, then with all of them held
//   - per-step latency one step at a time (a `call_tool` step: gateway → environment → back);
//   - every session stepping at once (a `call_tool` each), its p50/p99 and steps per second;
//   - every session answering (`submit_answer`, scored by /verify), all rewards checked;
// and the server process's RSS before the first level and with the sessions held (memory per
// session = the difference over the sessions). The clients run in this process.
import { spawn } from "node:child_process";
import { join } from "node:path";
import WebSocket from "ws";
import { freePort } from "../src/orchestrate/start.js";
import { GYM, REPO_ROOT } from "../test/helpers/cli.js";
import { median, rssMb } from "../test/helpers/hostile.js";
import { machineLine, markdownTable } from "./machine.js";
import { percentile, stdoutUntil, stop } from "./servers.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

/** One OpenEnv session: request/reply in order over its WebSocket. */
class Session {
  private readonly waiting: Array<(message: any) => void> = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (raw) => this.waiting.shift()?.(JSON.parse(String(raw))));
  }

  static open(url: string): Promise<Session> {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new Session(socket)));
      socket.once("error", reject);
    });
  }

  async send(message: unknown): Promise<any> {
    const reply = new Promise<any>((resolve) => this.waiting.push(resolve));
    this.socket.send(JSON.stringify(message));
    const answer = await reply;
    if (answer.type === "error") throw new Error(`OpenEnv error: ${JSON.stringify(answer.data)}`);
    return answer;
  }

  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.socket.once("close", () => resolve()));
    this.socket.close();
    return closed;
  }
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function pooled<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!, i);
      }
    }),
  );
  return results;
}

const TOOL_STEP = { type: "step", data: { type: "call_tool", tool_name: "get_weather", arguments: { city: "Oslo" } } };

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await work();
  return [value, performance.now() - started];
}

export default async function main(): Promise<void> {
  const levels = arg("sessions", "2048,4096").split(",").map(Number);
  const samples = Number(arg("samples", "200"));
  const max = Math.max(...levels);

  const engine = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "bench", "fake_engine_process.ts")], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const engineUrl = await new Promise<string>((resolve) => engine.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())));
  const server = spawn(
    process.execPath,
    [GYM, "env", "start", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engineUrl, "--model", "m", "--head-port", String(await freePort()), "--protocols", "openenv", "--max-sessions", String(max)],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  const printed = await stdoutUntil(server, "head server:");
  const base = /example_single_tool_call\s+openenv\s+(http:\/\/\S+)/.exec(printed)?.[1];
  if (!base) throw new Error(`no OpenEnv endpoint in:\n${printed}`);
  const wsUrl = `${base.replace(/^http/, "ws")}/ws`;
  const pid = server.pid!;

  const table: Array<Array<string | number>> = [];
  try {
    // Warm-up: a few episodes, so the environment's routes and the gateway's pools are hot.
    const warm = await Session.open(wsUrl);
    await warm.send({ type: "reset", data: { row_index: 0 } });
    for (let i = 0; i < 50; i++) await warm.send(TOOL_STEP);
    await warm.close();
    await new Promise((r) => setTimeout(r, 500));
    // Memory per session is measured against the server before any level: after a level, the RSS keeps
    // what the collector has not returned, and a difference from it undercounts.
    const before = rssMb(pid);

    for (const level of levels) {
      const [sessions, openMs] = await timed(() => pooled(Array.from({ length: level }), 256, () => Session.open(wsUrl)));
      await pooled(sessions, 256, (s, i) => s.send({ type: "reset", data: { row_index: i % 5 } }));
      const held = rssMb(pid);

      const one: number[] = [];
      for (let i = 0; i < samples; i++) {
        const session = sessions[(i * 7919) % sessions.length]!;
        one.push((await timed(() => session.send(TOOL_STEP)))[1]);
      }

      const [burst, burstMs] = await timed(() => Promise.all(sessions.map((s) => timed(() => s.send(TOOL_STEP)))));
      const burstTimes = burst.map(([, ms]) => ms);
      const answers = await Promise.all(sessions.map((s) => s.send({ type: "step", data: { type: "submit_answer", answer: "It is cold." } })));
      const rewarded = answers.filter((a) => a.data.reward === 1 && a.data.done === true).length;
      const peak = rssMb(pid);
      table.push([
        level,
        (openMs / 1000).toFixed(1),
        median(one).toFixed(2),
        percentile(one, 99).toFixed(2),
        median(burstTimes).toFixed(0),
        percentile(burstTimes, 99).toFixed(0),
        Math.round(level / (burstMs / 1000)),
        `${rewarded}/${level}`,
        before.toFixed(0),
        held.toFixed(0),
        (((held - before) * 1024) / level).toFixed(1),
        peak.toFixed(0),
      ]);
      await pooled(sessions, 512, (s) => s.close());
      await new Promise((r) => setTimeout(r, 1_000));
    }
  } finally {
    await stop(server);
    await stop(engine);
  }
  process.stdout.write(`${machineLine()}\n\n`);
  process.stdout.write(
    `${markdownTable(
      ["sessions held", "open (s)", "one step p50 (ms)", "one step p99 (ms)", "all step at once p50 (ms)", "p99 (ms)", "steps/s (all at once)", "rewards 1.0", "RSS before (MB)", "RSS held (MB)", "KB per session", "RSS peak (MB)"],
      table,
    )}\n`,
  );
}
