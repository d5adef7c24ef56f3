// `gym eval run --view`: the viewer of the run being started, following its files as they are
// written (live), and serving the finished run afterwards until Ctrl-C.
import { startViewerOrRefuse, serveUntilStopped } from "./view.js";
import { UsageError } from "./exit.js";

export interface RunViewer {
  url: string;
  /** After the run: says the viewer still serves, then serves until SIGINT/SIGTERM and exits with the run's code. */
  serveAfterRun(): Promise<never>;
}

export async function startRunViewer(outputPath: string, portText: string | undefined, notice: (message: string) => void): Promise<RunViewer> {
  const port = Number(portText ?? "0");
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--view-port must be a port number, got ${portText}`);
  const viewer = await startViewerOrRefuse({ rolloutsPath: outputPath, live: true, port });
  notice(`viewer: ${viewer.url} follows this run as it is written (and serves it after the run, until Ctrl-C)`);
  return {
    url: viewer.url,
    serveAfterRun: () => {
      // The poll timer may not have seen the run's last lines yet: catch up before saying it is over.
      viewer.refresh?.();
      process.stderr.write(`gym: the run is over; the viewer still serves it at ${viewer.url} (Ctrl-C to stop)\n`);
      return serveUntilStopped(viewer);
    },
  };
}
