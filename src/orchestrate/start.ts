// Starting a set of configured instances plus the head server, either all in this process (the
// default: fast, one command) or one child process per instance (`--process-per-server`).
import { fork, type ChildProcess } from "node:child_process";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import type { HttpApp } from "../http/app.js";
import { listen } from "../http/server.js";
import type { ServerType } from "../protocol/index.js";
import { buildHeadServer, DEFAULT_HEAD_HOST, type InstanceInfo } from "./head.js";
import { loadImplementation, PACKAGE_ROOT } from "./registry.js";
import { waitAnswering } from "./answering.js";
import type { HeadAddress } from "./nemo_gym_config.js";
import type { ProtocolEndpoint, ProtocolLayer, ProtocolSettings } from "../protocols/gateway.js";
import { startProtocolGateways, type RunningProtocols } from "../protocols/serve.js";
import { buildInstance, refResolver, type ChildSpec, type InstanceSpec } from "./instance.js";
import { launchPythonServer, nemoGymChildConfig, pythonExecutable, PythonServerError, type PythonChoice, type PythonServer } from "./python_server.js";

export interface StartOptions {
  /** Head server address; port 0 picks a free one (what `gym eval run` does). */
  headHost?: string;
  headPort?: number;
  processPerServer?: boolean;
  /** The merged config, served by the head at `/global_config_dict_yaml` (secrets already hidden). */
  globalConfig?: unknown;
  /**
   * Told, one line each, when a `--process-per-server` child dies unexpectedly, is restarted, or is
   * given up on. The CLI prints these; without it they go unseen.
   */
  onServerEvent?: (message: string) => void;
  /**
   * The merged config with its secrets, which NeMo Gym Python servers boot from (NEMO_GYM_CONFIG_DICT,
   * in their environment only); `globalConfig` when not given.
   */
  nemoGymConfig?: unknown;
  /** Which Python runs NeMo Gym servers (`--nemo-gym-python`, else their venvs). */
  python?: PythonChoice;
  /** Where each NeMo Gym Python server's output goes: `<pythonLogDir>/<instance>.log`. Default: ./gym_logs. */
  pythonLogDir?: string;
  /** How long a Python server may take until `GET /` answers (imports, Ray). Default 600 s. */
  pythonReadyTimeoutMs?: number;
  /** Each line a Python server prints, with its instance name, for callers that echo them. */
  onServerLine?: (name: string, line: string) => void;
  /** Protocol layers to serve every environment over besides NeMo Gym's (`--protocols`; protocols/index.ts). */
  protocols?: readonly ProtocolLayer[];
  protocolSettings?: ProtocolSettings;
}

export interface RunningServers {
  headUrl: string;
  instances: InstanceInfo[];
  /** Where each environment is served over each `--protocols` protocol. */
  protocols: ProtocolEndpoint[];
  urlOf(name: string): string;
  stop(): Promise<void>;
}

/** Models first, then environments, then agents: each may look up the ones before it. */
const START_ORDER: ServerType[] = ["responses_api_models", "resources_servers", "responses_api_agents"];

function hostOf(spec: InstanceSpec): string {
  return typeof spec.fields.host === "string" ? spec.fields.host : "127.0.0.1";
}

function portOf(spec: InstanceSpec): number {
  return typeof spec.fields.port === "number" ? spec.fields.port : 0;
}

// A server's own process (instance_process.ts) needs only these; they live in instance.ts so that it
// does not load this module, which brings the head, the collector behind its rollout service, YAML
// and the protocol gateways (issue 23, the per-server processes' start-up).
export { buildInstance, refResolver, type ChildSpec, type InstanceSpec };

export const DEFAULT_PYTHON_READY_TIMEOUT_MS = 600_000;
/** A server given by `url` is already up: it gets this long (or the Python timeout, if shorter) to answer `GET /`. */
const EXTERNAL_READY_TIMEOUT_MS = 30_000;

export async function startServers(specs: InstanceSpec[], options: StartOptions = {}): Promise<RunningServers> {
  const ordered = [...specs].sort((a, b) => START_ORDER.indexOf(a.type) - START_ORDER.indexOf(b.type));
  const pythonSpecs = ordered.filter((s) => s.python !== undefined);
  const externalSpecs = ordered.filter((s) => s.python === undefined && s.externalUrl !== undefined);
  let nativeSpecs = ordered.filter((s) => s.python === undefined && s.externalUrl === undefined);
  // Every Python is found before anything starts: a missing venv is a message, not a half-started run.
  const pythons = new Map(pythonSpecs.map((s) => [s.name, pythonExecutable(s.name, s.python!, s.type, s.implementation, options.python ?? {})]));

  const instances: InstanceInfo[] = [];
  const headHost = options.headHost ?? DEFAULT_HEAD_HOST;
  // The served config names the head; with port 0 its real port is known only after listen.
  let headAddress: HeadAddress = { host: headHost, port: options.headPort ?? 0 };
  // The head first: a NeMo Gym server asks it for the global config as it boots.
  let protocols: RunningProtocols | undefined;
  const head = buildHeadServer({
    instances: () => instances,
    globalConfig: () => options.globalConfig ?? {},
    address: () => headAddress,
    protocols: () => protocols?.endpoints ?? [],
  });
  let headUrl: string;
  try {
    headUrl = await listen(head, { host: headHost, port: options.headPort ?? 0 });
    headAddress = { host: headHost, port: Number(new URL(headUrl).port) };
  } catch (error) {
    await head.close();
    const code = (error as { code?: string }).code;
    if (code === "EADDRINUSE") {
      throw new Error(`the head server port ${options.headPort} is already in use (another \`gym env start\`?); pass --head-port 0 to pick a free one`, { cause: error });
    }
    throw error;
  }

  const external: InstanceInfo[] = externalSpecs.map((s) => {
    const url = new URL(s.externalUrl!);
    const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
    // Not gym's process (pid 0); start_time is when gym registered it (ng_status needs a number).
    return { name: s.name, server_type: s.type, implementation: s.implementation, host: url.hostname.replace(/^\[|\]$/g, ""), port, url: s.externalUrl!, pid: 0, start_time: Date.now() / 1000 };
  });
  const pythonPlaced: InstanceInfo[] = [];
  if (pythonSpecs.length > 0) {
    // A Python server reads every server's host/port from its config at boot: all are fixed now.
    nativeSpecs = await Promise.all(nativeSpecs.map(async (s) => (portOf(s) ? s : { ...s, fields: { ...s.fields, port: await freePort(hostOf(s)) } })));
    for (const s of pythonSpecs) {
      const host = hostOf(s);
      const port = portOf(s) || (await freePort(host));
      pythonPlaced.push({ name: s.name, server_type: s.type, implementation: s.implementation, host, port, url: `http://${host}:${port}`, pid: 0, dir_path: s.python!.dir, entrypoint: s.python!.entrypoint });
    }
  }
  const others = {
    urls: new Map([...external, ...pythonPlaced].map((i) => [i.name, i.url])),
    types: new Map([...externalSpecs, ...pythonSpecs].map((s) => [s.name, s.type])),
  };

  let native: Started | undefined;
  const pythonServers: PythonServer[] = [];
  const stop = async () => {
    await head.close();
    await protocols?.close();
    await Promise.allSettled(pythonServers.map((p) => p.stop()));
    await native?.stop();
  };
  try {
    await Promise.all(
      external.map(async (info) => {
        const timeoutMs = Math.min(EXTERNAL_READY_TIMEOUT_MS, options.pythonReadyTimeoutMs ?? EXTERNAL_READY_TIMEOUT_MS);
        const error = await waitAnswering(info.url, timeoutMs);
        if (error !== undefined) {
          throw new PythonServerError(`server "${info.name}" given by url ${info.url} did not answer GET / within ${timeoutMs / 1000} s (${error}); start it first, or fix its url`);
        }
      }),
    );
    native = options.processPerServer ? await startChildren(nativeSpecs, options.onServerEvent ?? (() => {}), others) : await startInProcess(nativeSpecs, others);
    instances.push(...native.instances, ...external);
    if (pythonSpecs.length > 0) {
      const all = [...native.instances, ...pythonPlaced, ...external];
      // Registered as they are launched, before they answer: NeMo Gym's head lists every server from
      // the start, and a NeMo Gym server looks itself up in the head's config as it boots.
      instances.push(...pythonPlaced);
      const childConfig = nemoGymChildConfig(options.nemoGymConfig ?? options.globalConfig ?? {}, all, headAddress);
      const logDir = options.pythonLogDir ?? join(process.cwd(), "gym_logs");
      const abort = new AbortController();
      const launched = await Promise.allSettled(
        pythonSpecs.map(async (spec, i) => {
          const info = pythonPlaced[i]!;
          const logPath = join(logDir, `${spec.name.replace(/\//g, "_")}.log`);
          const server = await launchPythonServer({
            signal: abort.signal,
            onSpawn: (pid, startTime) => {
              info.pid = pid;
              info.start_time = startTime;
            },
            name: spec.name,
            type: spec.type,
            implementation: spec.implementation,
            location: spec.python!,
            python: pythons.get(spec.name)!,
            host: info.host,
            port: info.port,
            config: childConfig,
            logPath,
            onLine: options.onServerLine && ((line) => options.onServerLine!(spec.name, line)),
            readyTimeoutMs: options.pythonReadyTimeoutMs ?? DEFAULT_PYTHON_READY_TIMEOUT_MS,
          }).catch((error: unknown) => {
            abort.abort();
            throw error;
          });
          pythonServers.push(server);
          server.onUnexpectedExit((how) => options.onServerEvent?.(`NeMo Gym server "${spec.name}" (pid ${server.pid}) exited (${how}); ${info.url} is down (log: ${logPath})`));
        }),
      );
      // Every launch has settled (each failed one stopped itself), so stop() below reaches every live one.
      // The first failure is the cause; the others were stopped because of it.
      const failed = launched.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed) throw failed.reason;
    }
    protocols = await startProtocolGateways(instances, options.globalConfig, options.protocols ?? [], { settings: options.protocolSettings, warn: (m) => options.onServerEvent?.(m) });
  } catch (error) {
    await stop();
    throw error;
  }
  const urls = new Map(instances.map((i) => [i.name, i.url]));
  return {
    headUrl,
    instances,
    protocols: protocols?.endpoints ?? [],
    urlOf: (name) => {
      const url = urls.get(name);
      if (!url) throw new Error(`no running server named "${name}"`);
      return url;
    },
    stop,
  };
}

/** URLs of the servers this process does not build (Python, external), for refs from those it does. */
interface OtherServers {
  urls: ReadonlyMap<string, string>;
  types: ReadonlyMap<string, ServerType>;
}

interface Started {
  instances: InstanceInfo[];
  stop(): Promise<void>;
}

async function startInProcess(specs: InstanceSpec[], others: OtherServers): Promise<Started> {
  const urls = new Map<string, string>(others.urls);
  const types = new Map([...others.types, ...specs.map((s) => [s.name, s.type] as const)]);
  const urlOf = refResolver(urls, types);
  const apps: HttpApp[] = [];
  const instances: InstanceInfo[] = [];
  const stop = async () => {
    await Promise.allSettled(apps.map((a) => a.close()));
  };
  try {
    for (const spec of specs) {
      const startTime = nowSeconds();
      const implementation = await loadImplementation(spec.type, spec.implementation, spec.entrypoint);
      const config = implementation.configSchema.parse(stripPlacement(spec.fields));
      const app = await buildInstance(implementation, { name: spec.name, config, urlOf });
      apps.push(app);
      const host = hostOf(spec);
      const url = await listen(app, { host, port: portOf(spec) });
      urls.set(spec.name, url);
      instances.push({ name: spec.name, server_type: spec.type, implementation: spec.implementation, host, port: Number(new URL(url).port), url, pid: process.pid, start_time: startTime });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { instances, stop };
}

/** Seconds since the epoch, as NeMo Gym's `start_time` (Python's `time()`) counts them. */
function nowSeconds(): number {
  return Date.now() / 1000;
}

function stripPlacement(fields: Record<string, unknown>): Record<string, unknown> {
  const { host: _host, port: _port, ...rest } = fields;
  return rest;
}

/** A free TCP port on `host`, found by binding port 0 and releasing it. */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export const CHILD_ENTRY = join(PACKAGE_ROOT, "dist", "orchestrate", "instance_process.js");

/** A child that dies is started again, but not more often than this within RESTART_WINDOW_MS. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
/**
 * Ctrl-C reaches the children (same process group) as it reaches us, and they may exit before our own
 * handler starts stopping them: an exit is judged only after this long, when a shutdown has begun.
 */
const EXIT_GRACE_MS = 500;

async function startChildren(specs: InstanceSpec[], report: (message: string) => void, others: OtherServers): Promise<Started> {
  // Every port is fixed before any child starts, so each child knows where all the others will be.
  const placed = await Promise.all(
    specs.map(async (spec) => {
      const host = hostOf(spec);
      const port = portOf(spec) || (await freePort(host));
      return { spec, host, port, url: `http://${host}:${port}` };
    }),
  );
  const urls = Object.fromEntries([...others.urls, ...placed.map((p) => [p.spec.name, p.url] as const)]);
  const types = Object.fromEntries([...others.types, ...placed.map((p) => [p.spec.name, p.spec.type] as const)]);
  /** The live child of each instance (a restarted one replaces its predecessor). */
  const current = new Map<string, ChildProcess>();
  let stopping = false;
  const stop = async () => {
    stopping = true;
    await Promise.all([...current.values()].map((child) => stopChild(child)));
  };
  /** When each instance's current child was started (NeMo Gym's `start_time`). */
  const startTimes = new Map<string, number>();
  const launch = async ({ spec, host, port }: (typeof placed)[number]): Promise<ChildProcess> => {
    const childSpec: ChildSpec = { instance: spec, host, port, urls, types };
    // An IPC channel: it carries the spec in, and the child exits when it closes, so a dead parent
    // never leaves orphans on ports.
    const child = fork(CHILD_ENTRY, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    current.set(spec.name, child);
    startTimes.set(spec.name, nowSeconds());
    const ready = waitReady(child, spec.name);
    // With a callback a closed channel is not an unhandled 'error': waitReady reports the exit.
    child.send({ spec: childSpec }, () => {});
    await ready;
    return child;
  };
  try {
    await Promise.all(placed.map(launch));
  } catch (error) {
    await stop();
    throw error;
  }
  const instances: InstanceInfo[] = placed.map(({ spec, host, port, url }) => ({
    name: spec.name,
    server_type: spec.type,
    implementation: spec.implementation,
    host,
    port,
    url,
    pid: current.get(spec.name)?.pid ?? 0,
    start_time: startTimes.get(spec.name) ?? nowSeconds(),
  }));

  // Supervision: a child that dies on its own (a crash, the OOM killer) would leave its port dead and
  // every rollout through it failing; start it again on the same port, and say so.
  const supervise = (place: (typeof placed)[number], instance: InstanceInfo, child: ChildProcess, restarts: number[]) => {
    child.once("exit", (code, signal) => setTimeout(() => onExit(code, signal), EXIT_GRACE_MS).unref());
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      if (stopping || current.get(place.spec.name) !== child) return;
      const now = Date.now();
      const recent = restarts.filter((t) => now - t < RESTART_WINDOW_MS);
      const how = signal ? `signal ${signal}` : `exit code ${code}`;
      if (code === 0) {
        // Children exit 0 only when told to (SIGTERM, SIGINT): someone stopped it on purpose.
        report(`server "${place.spec.name}" (pid ${child.pid}) was stopped (${how}); not restarting it: ${place.url} stays down`);
        return;
      }
      if (recent.length >= MAX_RESTARTS) {
        report(`server "${place.spec.name}" (pid ${child.pid}) died (${how}) ${recent.length + 1} times within ${RESTART_WINDOW_MS / 1000} s; not restarting it: ${place.url} stays down`);
        return;
      }
      report(`server "${place.spec.name}" (pid ${child.pid}) died unexpectedly (${how}); restarting it on ${place.url}`);
      launch(place).then(
        (next) => {
          if (stopping) return void stopChild(next);
          instance.pid = next.pid ?? 0;
          instance.start_time = startTimes.get(place.spec.name) ?? nowSeconds();
          report(`server "${place.spec.name}" is back on ${place.url} (pid ${instance.pid})`);
          supervise(place, instance, next, [...recent, now]);
        },
        (error: unknown) => {
          if (!stopping) report(`server "${place.spec.name}" could not be restarted: ${error instanceof Error ? error.message : String(error)}; ${place.url} stays down`);
        },
      );
    };
  };
  placed.forEach((place, i) => supervise(place, instances[i]!, current.get(place.spec.name)!, []));
  return { instances, stop };
}

function waitReady(child: ChildProcess, name: string, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server "${name}" did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    child.once("message", (message: { ready?: boolean; error?: string }) => {
      clearTimeout(timer);
      if (message.ready) resolve();
      else reject(new Error(`server "${name}" failed to start: ${message.error ?? "unknown error"}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server "${name}" exited during start-up (${signal ?? `code ${code}`})`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
