// `gym serve`: the rollout service on its own port, until Ctrl-C. Either it starts the configured
// servers itself (as `gym env start` does; their head serves `/v1/rollouts` too), or with
// `--head-url` it serves the agents of servers already running.
import { resolve as resolvePath } from "node:path";
import { autoAdmission } from "../collect/auto_admission.js";
import { mountRolloutService } from "../collect/service.js";
import { parseAutoConcurrency, setAutoConcurrency, type AutoBounds } from "../http/adaptive_limit.js";
import { ROLLOUTS_PATH } from "../protocol/rollout_service.js";
import { closeDispatcher } from "../http/client.js";
import { createServer, listen } from "../http/server.js";
import { waitForModels } from "../orchestrate/readiness.js";
import { startServers, type RunningServers } from "../orchestrate/start.js";
import { agentUrlsOf, fetchInstances } from "../orchestrate/status.js";
import { nemoGymLaunchNotice, nemoGymStartOptions, resolveCliConfig, type CliConfigOptions } from "./config_args.js";
import { UsageError } from "./exit.js";
import { table } from "./table.js";

interface ServeOptions extends CliConfigOptions {
  host: string;
  port: string;
  headUrl?: string;
  headPort: string;
  processPerServer?: boolean;
  concurrency: string;
  modelReadyTimeout: string;
}

function portNumber(flag: string, value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`${flag} must be a port number, got ${value}`);
  return port;
}

export async function serve(overrides: string[], options: ServeOptions): Promise<void> {
  const port = portNumber("--port", options.port);
  const headPort = portNumber("--head-port", options.headPort);
  // `--concurrency auto[:MIN-MAX]`: the engine gates of the servers started here (in this process or,
  // with --process-per-server, inheriting the bounds) find their ceiling, and requests that name no
  // concurrency are admitted after them; a request's own `concurrency` is used as given.
  let auto: AutoBounds | undefined;
  try {
    auto = parseAutoConcurrency(options.concurrency);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const concurrency = auto ? auto.max : Number(options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency must be a whole number ≥ 1 or auto[:MIN-MAX], got ${options.concurrency}`);
  setAutoConcurrency(auto);
  const admission = auto ? autoAdmission(auto, { localGates: !options.headUrl && !options.processPerServer }) : undefined;
  const configGiven = options.config.length > 0 || options.resourcesServer !== undefined || options.modelType !== undefined || overrides.length > 0;

  let servers: RunningServers | undefined;
  let agents: () => Promise<ReadonlyMap<string, string>>;
  if (options.headUrl) {
    if (configGiven) throw new UsageError("pass either --head-url (serve running servers) or a config (start them), not both");
    const headUrl = options.headUrl;
    await fetchInstances(headUrl);
    // Asked per request: servers behind the head may be restarted or added between trainer steps.
    agents = async () => agentUrlsOf(await fetchInstances(headUrl));
  } else {
    const resolved = await resolveCliConfig(overrides, options, { command: "serve" });
    if (!resolved.instances.some((i) => i.type === "responses_api_agents")) {
      throw new UsageError("the config defines no agent (responses_api_agents) to run rollouts with; pass --config FILE or --resources-server ID, or --head-url URL");
    }
    const readyTimeoutS = Number(options.modelReadyTimeout);
    await waitForModels(resolved.instances, (Number.isFinite(readyTimeoutS) ? readyTimeoutS : 30) * 1000);
    // NeMo Gym Python servers (if any) write to ./gym_logs, as under `gym env start` by default.
    const pythonLogDir = resolvePath("gym_logs");
    const launching = nemoGymLaunchNotice(resolved, pythonLogDir);
    if (launching) process.stderr.write(`gym: ${launching}\n`);
    servers = await startServers(resolved.instances, {
      pythonLogDir,
      headPort,
      processPerServer: options.processPerServer,
      globalConfig: resolved.redacted,
      onServerEvent: (message) => process.stderr.write(`gym: ${message}\n`),
      ...nemoGymStartOptions(resolved, options),
    });
    const started = agentUrlsOf(servers.instances);
    agents = async () => started;
    const rows = servers.instances.map((i) => [i.name, i.server_type, i.implementation, i.url, String(i.pid)]);
    process.stdout.write(`${table(["NAME", "TYPE", "IMPLEMENTATION", "URL", "PID"], rows)}\n\nhead server: ${servers.headUrl}\n`);
  }

  const app = createServer({ name: "rollout_service" });
  mountRolloutService(app, { agents, defaultConcurrency: concurrency, ...(admission ? { admit: (inFlight: number) => admission.admit(inFlight) } : {}) });
  let url: string;
  try {
    url = await listen(app, { host: options.host, port });
  } catch (error) {
    await servers?.stop();
    if ((error as { code?: string }).code === "EADDRINUSE") throw new UsageError(`port ${port} is already in use; pass --port 0 to pick a free one`);
    throw error;
  }
  process.stdout.write(`rollout service: ${url}${ROLLOUTS_PATH}  (Ctrl-C to stop)\n`);

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.stderr.write(`gym: ${signal}: stopping the rollout service${servers ? ` and ${servers.instances.length} servers` : ""}\n`);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await app.close();
  await servers?.stop();
  await closeDispatcher();
  process.exit(0);
}
