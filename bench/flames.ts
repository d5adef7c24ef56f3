// `npm run bench -- flames [--rollouts 5000] [--concurrency 64] [--model-type vllm_model] [--out bench/flames] [--keep-profiles DIR]`
// Issue 23's flame graphs of both layouts: example_single_tool_call against the fake engine (in this
// process, so its CPU is not in any profile), once in one process (`gym eval run`) and once with a
// process per server (`gym env start --process-per-server` + `gym eval run --no-serve`), every Gymkit
// process under `node --cpu-prof` (the per-server children inherit the flag through fork's execArgv).
// Writes to --out one SVG flame graph per process (bench/flame_svg.ts; frames put back at their src/
// line through the bundle's source maps) and README.md with the tables `bench profile` prints for each,
// the CPU each run took and the servers' time-to-ready CPU. File names are fixed, so a re-run replaces
// the graphs in place:
//   one_process.svg                 `gym eval run` (collector, agent, model server, environment, head)
//   per_server_collector.svg        `gym eval run --no-serve`
//   per_server_head.svg             `gym env start --process-per-server` itself (the head server)
//   per_server_agent.svg, per_server_model.svg, per_server_environment.svg   the three forked servers
// Start-up is in every profile (a process is profiled from its first line to its exit); at the default
// 5,000 rollouts it is a few percent of the one-process graph.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { callTree } from "./call_tree.js";
import { TreeMeter, waitFor, writeInput } from "./collect.js";
import { flameSvg } from "./flame_svg.js";
import { arg } from "./judged.js";
import { machineLine, markdownTable } from "./machine.js";
import { profileTables, type Profile } from "./profile.js";
import { REPO_ROOT } from "../test/helpers/cli.js";
import { startFakeEngine } from "../test/doubles/fake_engine.js";

const GYM = join(REPO_ROOT, "dist", "cli", "main.js");

function profiledGym(profileDir: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, GYM, ...args], { cwd: REPO_ROOT, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** The profiles V8 wrote into a directory, by the pid in their names (CPU.<date>.<time>.<pid>.<tid>.<n>.cpuprofile). */
function profilesIn(dir: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort()) found.set(Number(file.split(".")[3]), join(dir, file));
  return found;
}

/** The head's `/server_instances` role names, by server type (NeMo Gym's record shape). */
const ROLE: Record<string, string> = { responses_api_agents: "agent", responses_api_models: "model", resources_servers: "environment" };

interface Graph {
  name: string;
  what: string;
  file: string;
  /** CPU ms per rollout the meter measured for this graph's run (the tables' µs column). */
  perRolloutMs?: number;
}

export default async function main(): Promise<void> {
  const rollouts = Number(arg("rollouts", "5000"));
  const concurrency = arg("concurrency", "64");
  const modelType = arg("model-type", "vllm_model");
  const out = resolve(arg("out", join(REPO_ROOT, "bench", "flames")));
  const keep = process.argv.includes("--keep-profiles") ? resolve(arg("keep-profiles", "")) : undefined;
  const work = keep ?? mkdtempSync(join(tmpdir(), "gym-bench-flames-"));
  const log = (text: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`);
  const engine = await startFakeEngine({ recordRequests: false });
  const graphs: Graph[] = [];
  const notes: string[] = [];
  try {
    const input = join(work, "input.jsonl");
    writeInput(input, rollouts);
    const server = ["--resources-server", "example_single_tool_call", "--model-type", modelType, "--model-url", engine.baseUrl, "--model", "m"];

    // One process.
    const oneDir = join(work, "one_process");
    mkdirSync(oneDir, { recursive: true });
    log(`one process: ${rollouts} rollouts`);
    const one = profiledGym(oneDir, ["eval", "run", ...server, "-i", input, "-o", join(work, "one.jsonl"), "--concurrency", concurrency, "--quiet"]);
    const oneMeter = new TreeMeter(() => [one.pid!]);
    oneMeter.start();
    const oneCode = await waitFor(one);
    oneMeter.sample();
    oneMeter.stop();
    if (oneCode !== 0) throw new Error(`gym eval run exited ${oneCode}`);
    const oneMs = oneMeter.cpuMs() / rollouts;
    notes.push(`one process: ${(oneMeter.cpuMs() / 1000).toFixed(2)} CPU-s for ${rollouts} rollouts (${oneMs.toFixed(2)} ms / rollout, start-up included; under the profiler)`);
    for (const file of profilesIn(oneDir).values()) graphs.push({ name: "one_process", what: "one process (`gym eval run`: collector, agent, model server, environment, head)", file, perRolloutMs: oneMs });

    // A process per server.
    const serversDir = join(work, "per_server");
    const collectorDir = join(work, "per_server_collector");
    mkdirSync(serversDir, { recursive: true });
    mkdirSync(collectorDir, { recursive: true });
    const port = await freePort();
    log(`process per server: starting the servers (head on ${port})`);
    const servers = profiledGym(serversDir, ["env", "start", ...server, "--head-port", String(port), "--process-per-server"]);
    const serversExited = new Promise((r) => servers.once("exit", r));
    const readyMeter = new TreeMeter(() => [servers.pid!]);
    await waitFor(servers, "head server:");
    readyMeter.sample();
    notes.push(`process per server: the head and its three servers took ${(readyMeter.cpuMs() / 1000).toFixed(2)} CPU-s to be ready (under the profiler)`);
    const instances = (await (await fetch(`http://127.0.0.1:${port}/server_instances`)).json()) as Array<{ pid: number; server_type: string; process_name: string }>;
    const roleOf = new Map<number, { role: string; name: string }>([[servers.pid!, { role: "head", name: "`gym env start --process-per-server`" }]]);
    for (const instance of instances) roleOf.set(instance.pid, { role: ROLE[instance.server_type] ?? `other_${instance.pid}`, name: `${instance.process_name} (${instance.server_type})` });
    let collector: ChildProcess | undefined = undefined;
    const meter = new TreeMeter(() => [servers.pid!, ...(collector?.pid ? [collector.pid] : [])]);
    meter.sample();
    const before = meter.cpuMs();
    meter.start();
    log(`process per server: ${rollouts} rollouts`);
    collector = profiledGym(collectorDir, ["eval", "run", "--no-serve", "--head-url", `http://127.0.0.1:${port}`, "--agent", "example_single_tool_call_simple_agent", "-i", input, "-o", join(work, "per_server.jsonl"), "--concurrency", concurrency, "--quiet"]);
    const collectorCode = await waitFor(collector);
    meter.sample();
    meter.stop();
    servers.kill("SIGTERM");
    await serversExited;
    if (collectorCode !== 0) throw new Error(`gym eval run --no-serve exited ${collectorCode}`);
    const perServerMs = (meter.cpuMs() - before) / rollouts;
    notes.push(`process per server: ${((meter.cpuMs() - before) / 1000).toFixed(2)} CPU-s for ${rollouts} rollouts over all five processes (${perServerMs.toFixed(2)} ms / rollout, the servers' start-up excluded, the collector's included; under the profiler)`);
    for (const file of profilesIn(collectorDir).values()) graphs.push({ name: "per_server_collector", what: "process per server: the collector (`gym eval run --no-serve`)", file });
    for (const [pid, file] of profilesIn(serversDir)) {
      const role = roleOf.get(pid) ?? { role: `other_${pid}`, name: `pid ${pid}` };
      graphs.push({ name: `per_server_${role.role}`, what: `process per server: ${role.name}`, file });
    }

    // The graphs and the tables.
    mkdirSync(out, { recursive: true });
    for (const stale of readdirSync(out).filter((f) => f.endsWith(".svg"))) rmSync(join(out, stale));
    const order = ["one_process", "per_server_collector", "per_server_head", "per_server_agent", "per_server_model", "per_server_environment"];
    graphs.sort((a, b) => (order.indexOf(a.name) + 1 || 99) - (order.indexOf(b.name) + 1 || 99) || (a.name < b.name ? -1 : 1));
    const sections: string[] = [];
    const index: Array<Array<string>> = [];
    for (const graph of graphs) {
      const profile = JSON.parse(readFileSync(graph.file, "utf8")) as Profile;
      const tree = callTree(profile);
      const svg = `${graph.name}.svg`;
      writeFileSync(
        join(out, svg),
        flameSvg(tree, {
          title: `${graph.what}: example_single_tool_call, ${modelType}, ${rollouts} rollouts, concurrency ${concurrency}`,
          subtitle: `${(tree.total / 1e6).toFixed(1)} s busy sampled (wall-clock ticks; read shares) · frames under 0.2% merged · hover a box for its frame · ${new Date().toISOString().slice(0, 10)}`,
        }),
      );
      index.push([`[${svg}](${svg})`, graph.what, `${(tree.total / 1e6).toFixed(1)} s`]);
      sections.push(profileTables(profile, `${graph.what} ([${svg}](${svg}))`, { top: 15, perRolloutMs: graph.perRolloutMs ? Number(graph.perRolloutMs.toFixed(2)) : 0 }));
      log(`wrote ${relative(process.cwd(), join(out, svg))}`);
    }
    const readme = [
      "# Flame graphs of both layouts (`npm run bench -- flames`)",
      "",
      "Written by `bench/flames.ts`; see bench/README.md, \"Profiles\", for how to read them. Each SVG is one",
      "process under `node --cpu-prof`, from its start to its exit; width is sampled time, colour the package or",
      "Gymkit folder, frames at their src/ line (the bundle's source maps). Open one in a browser for the tooltips.",
      "",
      `${machineLine()} · example_single_tool_call · ${modelType} · ${rollouts} rollouts · concurrency ${concurrency}` +
        ` · load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" / ")} at the end`,
      "",
      ...notes.map((n) => `- ${n}`),
      "",
      markdownTable(["graph", "process", "busy sampled"], index),
      "",
      ...sections,
    ].join("\n");
    writeFileSync(join(out, "README.md"), readme);
    process.stdout.write(`## flames\n\n${readme.split("\n").slice(6).join("\n")}\n`);
  } finally {
    await engine.close();
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}
