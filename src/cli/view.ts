// `gym view`: the web viewer of one run's rollouts, failures and metrics, until Ctrl-C.
import { checkReadableFile, checkWritableFile, ensureParentFolder } from "../config/file_errors.js";
import { writeReport } from "../viewer/report.js";
import { startViewer } from "../viewer/server.js";
import { UsageError } from "./exit.js";

interface ViewOptions {
  rollouts: string;
  host: string;
  port: string;
  /** Write the static report there and exit. */
  export?: string;
}

export async function view(options: ViewOptions): Promise<void> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got ${options.port}`);
  checkReadableFile(options.rollouts);
  if (options.export !== undefined) {
    checkWritableFile(options.export, `--export ${options.export}`);
    ensureParentFolder(options.export);
    const report = await writeReport({ rolloutsPath: options.rollouts, outPath: options.export });
    process.stdout.write(`report: ${report.path} (${Math.round(report.bytes / 1024)} KB: plots, ${report.tasks} tasks, ${report.conversations} sample conversations; opens offline)\n`);
    return;
  }
  let viewer: Awaited<ReturnType<typeof startViewer>>;
  try {
    viewer = await startViewer({ rolloutsPath: options.rollouts, host: options.host, port });
  } catch (error) {
    if ((error as { code?: string }).code === "EADDRINUSE") throw new UsageError(`port ${port} is already in use; pass --port 0 to pick a free one`);
    throw error;
  }
  const { run } = viewer;
  const malformed = run.malformedCount ? `, ${run.malformedCount} malformed lines skipped (listed on the page)` : "";
  process.stderr.write(`gym: indexed ${run.entries.successes} rollouts and ${run.entries.count - run.entries.successes} failure lines of ${run.tasks} tasks${malformed}\n`);
  process.stdout.write(`viewer: ${viewer.url}  (Ctrl-C to stop)\n`);

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.stderr.write(`gym: ${signal}: stopping the viewer\n`);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await viewer.close();
  process.exit(0);
}
