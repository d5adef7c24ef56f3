// `gym view`: the web viewer of one run's rollouts, failures and metrics — or of several runs side by
// side (`--rollouts` repeated, or a directory of runs) — following the files as they grow, until
// Ctrl-C; or (`--export`) one run's static report.
import { statSync } from "node:fs";
import { checkReadableFile, checkWritableFile, ensureParentFolder } from "../config/file_errors.js";
import { namedRuns } from "../viewer/compare/runs.js";
import { writeReport } from "../viewer/report.js";
import { startViewer, type Viewer } from "../viewer/server.js";
import { UsageError } from "./exit.js";

interface ViewOptions {
  rollouts: string[];
  live: boolean;
  host: string;
  port: string;
  /** Write the static report there and exit. */
  export?: string;
}

/** Starts the viewer, turning a port in use into a usage error. */
export async function startViewerOrRefuse(options: Parameters<typeof startViewer>[0]): Promise<Viewer> {
  try {
    return await startViewer(options);
  } catch (error) {
    if ((error as { code?: string }).code === "EADDRINUSE") throw new UsageError(`port ${options.port} is already in use; pass --port 0 to pick a free one`);
    throw error;
  }
}

/** Serves until SIGINT or SIGTERM, then closes the viewer and exits (with process.exitCode when set, else 0). */
export async function serveUntilStopped(viewer: Viewer): Promise<never> {
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.stderr.write(`gym: ${signal}: stopping the viewer\n`);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await viewer.close();
  process.exit(process.exitCode ?? 0);
}

export async function view(options: ViewOptions): Promise<void> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got ${options.port}`);
  if (options.rollouts.length === 0) throw new UsageError("required option '--rollouts <path>' not specified");
  // A file argument is checked as every --rollouts is (missing, unreadable); a directory holds runs.
  for (const path of options.rollouts) if (!isDirectory(path)) checkReadableFile(path);
  let runs: ReturnType<typeof namedRuns>;
  try {
    runs = namedRuns(options.rollouts);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [first, ...others] = runs;
  if (options.export !== undefined) {
    if (others.length) throw new UsageError(`--export writes the report of one run; got ${runs.length} runs (${runs.map((r) => r.name).join(", ")})`);
    checkWritableFile(options.export, `--export ${options.export}`);
    ensureParentFolder(options.export);
    const report = await writeReport({ rolloutsPath: first!.path, outPath: options.export });
    process.stdout.write(`report: ${report.path} (${Math.round(report.bytes / 1024)} KB: plots, ${report.tasks} tasks, ${report.conversations} sample conversations; opens offline)\n`);
    return;
  }
  const viewer = await startViewerOrRefuse({ rolloutsPath: first!.path, name: first!.name, compareWith: others, live: options.live, host: options.host, port });
  const { run } = viewer;
  const malformed = run.malformedCount ? `, ${run.malformedCount} malformed lines skipped (listed on the page)` : "";
  process.stderr.write(`gym: indexed ${run.entries.successes} rollouts and ${run.entries.count - run.entries.successes} failure lines of ${run.tasks} tasks${malformed}\n`);
  if (others.length) process.stderr.write(`gym: comparing ${runs.length} runs (baseline ${first!.name}): ${runs.map((r) => r.name).join(", ")}\n`);
  const compare = others.length ? `  comparison: ${viewer.url}#/compare` : "";
  process.stdout.write(`viewer: ${viewer.url}${compare}  (Ctrl-C to stop)\n`);
  await serveUntilStopped(viewer);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
