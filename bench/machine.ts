// The machine a benchmark ran on, printed above every results table.
import os from "node:os";

export function machineLine(): string {
  const cpus = os.cpus();
  return `${new Date().toISOString().slice(0, 10)} · ${cpus[0]?.model ?? "unknown CPU"} × ${cpus.length} · ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB · Node ${process.version} · ${os.platform()} ${os.release()}`;
}

/** A Markdown table from a header row and data rows. */
export function markdownTable(headers: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.map(String).join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}
