// `npm run bench -- audit [rows]`: the CPU cost of `gym env audit --all` (issue 21 target: the whole
// catalog in under 5 minutes of CPU). Audits every built-in environment in this process, one after
// another, and prints CPU seconds (user + system, this process) and wall seconds per environment and
// in total (paste the table into bench/README.md).
import { auditEnvironment } from "../src/audit/run.js";
import { auditResolver } from "../src/cli/env_audit.js";
import { closeDispatcher } from "../src/http/client.js";
import { builtinIds, PROTOCOL_DRIVERS } from "../src/orchestrate/registry.js";
import { machineLine, markdownTable } from "./machine.js";

export default async function bench(args: string[]): Promise<void> {
  const rows = Number(args[0] ?? 2);
  const resolve = auditResolver();
  const table: Array<Array<string | number>> = [];
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (const id of builtinIds("resources_servers").filter((x) => !PROTOCOL_DRIVERS.has(x))) {
    const c = process.cpuUsage();
    const w = performance.now();
    const audit = await auditEnvironment({ id }, { rows, resolve });
    const used = process.cpuUsage(c);
    table.push([id, ((used.user + used.system) / 1e6).toFixed(1), ((performance.now() - w) / 1000).toFixed(1), audit.error ? "error" : audit.cells.filter((x) => x.verdict === "FAIL").length]);
    process.stderr.write(`${id} done\n`);
  }
  const total = process.cpuUsage(cpu0);
  table.push(["**all**", ((total.user + total.system) / 1e6).toFixed(1), ((performance.now() - wall0) / 1000).toFixed(1), ""]);
  await closeDispatcher();
  process.stdout.write(`${machineLine()}\n\n${markdownTable(["environment", "CPU s", "wall s", "FAIL cells"], table)}\n`);
}
