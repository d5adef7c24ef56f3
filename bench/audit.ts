// `npm run bench -- audit [rows]`: the CPU cost of `gym env audit --all` (issue 21 target: the whole
// catalog in under 5 minutes of CPU). Audits every built-in environment in this process, one after
// another, and prints CPU seconds and wall seconds per environment and in total (paste the table into
// bench/README.md). CPU is this process's user + system plus that of the child processes it reaped
// (sandboxed programs, spawned tools: /proc/self/stat's cutime + cstime), shown apart as well.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { auditEnvironment } from "../src/audit/run.js";
import { auditResolver } from "../src/cli/env_audit.js";
import { closeDispatcher } from "../src/http/client.js";
import { builtinIds, PROTOCOL_DRIVERS } from "../src/orchestrate/registry.js";
import { machineLine, markdownTable } from "./machine.js";

const TICKS_PER_S = 100; // USER_HZ on Linux

/** Reaped children's CPU seconds (cutime + cstime of /proc/self/stat); 0 where /proc is absent. */
function childrenCpuS(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] is field 3 (state): cutime and cstime are fields 16 and 17.
    return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

const ownCpuS = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1e6;

export default async function bench(args: string[]): Promise<void> {
  const rows = Number(args[0] ?? 2);
  const resolve = auditResolver();
  const table: Array<Array<string | number>> = [];
  const load0 = loadavg()[0]!;
  const cpu0 = process.cpuUsage();
  const children0 = childrenCpuS();
  const wall0 = performance.now();
  for (const id of builtinIds("resources_servers").filter((x) => !PROTOCOL_DRIVERS.has(x))) {
    const c = process.cpuUsage();
    const k = childrenCpuS();
    const w = performance.now();
    const audit = await auditEnvironment({ id }, { rows, resolve });
    const own = ownCpuS(process.cpuUsage(c));
    const children = childrenCpuS() - k;
    table.push([id, (own + children).toFixed(1), children.toFixed(1), ((performance.now() - w) / 1000).toFixed(1), audit.error ? "error" : audit.cells.filter((x) => x.verdict === "FAIL").length]);
    process.stderr.write(`${id} done\n`);
  }
  const own = ownCpuS(process.cpuUsage(cpu0));
  const children = childrenCpuS() - children0;
  table.push(["**all**", (own + children).toFixed(1), children.toFixed(1), ((performance.now() - wall0) / 1000).toFixed(1), ""]);
  await closeDispatcher();
  const load = `load average (1 min) ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end`;
  process.stdout.write(`${machineLine()} · ${load}\n\n${markdownTable(["environment", "CPU s (all)", "of which child processes", "wall s", "FAIL cells"], table)}\n`);
}
