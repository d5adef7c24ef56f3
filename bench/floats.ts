// `npm run bench -- floats [--rounds N]`: what writing NeMo Gym's floats costs per rollout line.
// JSON.stringify against stringifyWithFloats(row, ROLLOUT_FLOATS) (what /verify replies and rollout
// lines go through since issue 13) on the real rollout lines of example_multi_step (~15 KB each, all
// with integral floats, so the marker replace runs every time). JSON.parse of the same text is shown
// for scale. Methods alternate within each round; the figure is the median over rounds.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { ROLLOUT_FLOATS, stringifyWithFloats } from "../src/protocol/python_json.js";
import { machineLine, markdownTable } from "./machine.js";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const ROLLOUTS = join(ROOT, "src", "environments", "example_multi_step", "data", "example_rollouts.jsonl");

function arg(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function main(args: string[]): Promise<void> {
  const rounds = Number(arg(args, "rounds", "15"));
  const texts = readFileSync(ROLLOUTS, "utf8").split("\n").filter((line) => line.trim());
  const rows = texts.map((text) => JSON.parse(text) as Record<string, unknown>);
  const perRound = 400; // lines per method per round (cycling over the file's lines)
  let sink = 0;
  const methods: Array<[string, (i: number) => number]> = [
    ["JSON.stringify(row)", (i) => JSON.stringify(rows[i % rows.length]).length],
    ["stringifyWithFloats(row, ROLLOUT_FLOATS)", (i) => stringifyWithFloats(rows[i % rows.length], ROLLOUT_FLOATS).length],
    ["JSON.parse(line) (for scale)", (i) => (JSON.parse(texts[i % texts.length]!) as object) === null ? 0 : 1],
  ];
  const times = methods.map(() => [] as number[]);
  for (let round = -3; round < rounds; round++) {
    // Rounds below 0 warm the JIT and are not counted.
    methods.forEach(([, run], m) => {
      const start = performance.now();
      for (let i = 0; i < perRound; i++) sink += run(i);
      if (round >= 0) times[m]!.push(((performance.now() - start) * 1e6) / perRound);
    });
  }
  if (sink === 0) throw new Error("nothing was serialised"); // keeps the results live
  const base = median(times[0]!);
  const meanBytes = texts.reduce((n, t) => n + t.length, 0) / texts.length;
  const table = methods.map(([label], m) => {
    const ns = median(times[m]!);
    return [label, (ns / 1000).toFixed(1), `${(Math.min(...times[m]!) / 1000).toFixed(1)}–${(Math.max(...times[m]!) / 1000).toFixed(1)}`, (ns / base).toFixed(2)];
  });
  process.stdout.write(
    `## floats\n\n${machineLine()}\n\n${rows.length} rollout lines of example_multi_step, ${(meanBytes / 1000).toFixed(1)} KB each on average; ` +
      `median of ${rounds} rounds × ${perRound} lines\n\n` +
      `${markdownTable(["serialiser", "µs / line (median)", "µs / line, range over rounds", "vs JSON.stringify"], table)}\n`,
  );
}
