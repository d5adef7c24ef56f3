// `gym env start`: run the head server and every configured instance until Ctrl-C / SIGTERM.
import { startServers } from "../orchestrate/start.js";
import { resolve as resolvePath } from "node:path";
import { nemoGymLaunchNotice, nemoGymStartOptions, resolveCliConfig, type CliConfigOptions } from "./config_args.js";
import { UsageError } from "./exit.js";
import { headServerOf } from "./run_options.js";
import { table } from "./table.js";
import { DEFAULT_PROTOCOL_SETTINGS } from "../protocols/gateway.js";

interface EnvStartOptions extends CliConfigOptions {
  headHost?: string;
  headPort?: string;
  processPerServer?: boolean;
  logDir?: string;
  protocols?: string;
  maxSessions?: string;
  sessionTimeout?: string;
}

export async function envStart(overrides: string[], options: EnvStartOptions): Promise<void> {
  const resolved = await resolveCliConfig(overrides, options, { command: "env start" });
  const head = headServerOf(resolved.config);
  const headPort = options.headPort === undefined ? head.port : Number(options.headPort);
  if (!Number.isInteger(headPort) || headPort < 0 || headPort > 65535) throw new UsageError(`--head-port must be a port number, got ${options.headPort}`);
  if (resolved.instances.length === 0) throw new UsageError("the config defines no servers; pass --config FILE or --resources-server ID");
  const configLogDir = resolved.config.nemo_gym_log_dir;
  const logDir = resolvePath(options.logDir ?? (typeof configLogDir === "string" && configLogDir !== "" ? configLogDir : "gym_logs"));
  // The protocol layers (OpenEnv's server with ws, MCP, ORS) load only when asked for: a plain
  // `env start` does not pay for them at start-up (issue 23).
  const protocols = options.protocols === undefined ? [] : (await import("../protocols/index.js")).parseProtocols(options.protocols);
  const maxSessions = options.maxSessions === undefined ? DEFAULT_PROTOCOL_SETTINGS.maxSessions : Number(options.maxSessions);
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new UsageError(`--max-sessions must be a whole number of at least 1, got ${options.maxSessions}`);
  const sessionTimeout = options.sessionTimeout === undefined ? undefined : Number(options.sessionTimeout);
  if (sessionTimeout !== undefined && !(Number.isFinite(sessionTimeout) && sessionTimeout > 0)) throw new UsageError(`--session-timeout must be a number of seconds above 0, got ${options.sessionTimeout}`);
  const launching = nemoGymLaunchNotice(resolved, logDir);
  if (launching) process.stderr.write(`gym: ${launching}\n`);
  const servers = await startServers(resolved.instances, {
    ...nemoGymStartOptions(resolved, options),
    pythonLogDir: logDir,
    // Echoed as NeMo Gym shows them, `(instance) line`; its servers prefix most lines themselves.
    onServerLine: (name, line) => process.stderr.write(line.startsWith(`(${name}) `) ? `${line}\n` : `(${name}) ${line}\n`),
    headHost: options.headHost ?? head.host,
    headPort,
    processPerServer: options.processPerServer,
    globalConfig: resolved.redacted,
    onServerEvent: (message) => process.stderr.write(`gym: ${message}\n`),
    protocols,
    protocolSettings: { maxSessions, sessionTimeout },
  });
  const rows = servers.instances.map((i) => [i.name, i.server_type, i.implementation, i.url, String(i.pid)]);
  process.stdout.write(`${table(["NAME", "TYPE", "IMPLEMENTATION", "URL", "PID"], rows)}\n\n`);
  if (servers.protocols.length > 0) process.stdout.write(`${table(["ENVIRONMENT", "PROTOCOL", "URL"], servers.protocols.map((p) => [p.environment, p.protocol, p.url]))}\n\n`);
  process.stdout.write(`head server: ${servers.headUrl}  (Ctrl-C to stop)\n`);

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.stderr.write(`gym: ${signal}: stopping ${servers.instances.length} servers\n`);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await servers.stop();
  process.exit(0);
}
