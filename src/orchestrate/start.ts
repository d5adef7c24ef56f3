// Starting a set of configured instances plus the head server, either all in this process (the
// default: fast, one command) or one child process per instance (`--process-per-server`).
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { retryStats, RETRIES_PATH } from "../http/retry_stats.js";
import { listen } from "../http/server.js";
import { collectReplicaPools, serveReplicaStats } from "../models/replicas.js";
import type { ServerRef, ServerType } from "../protocol/index.js";
import { buildHeadServer, DEFAULT_HEAD_HOST, type InstanceInfo } from "./head.js";
import type { InstanceContext, ServerImplementation } from "./implementation.js";
import { loadImplementation, PACKAGE_ROOT } from "./registry.js";

export interface InstanceSpec {
  name: string;
  type: ServerType;
  implementation: string;
  /** Validated implementation fields (may include `host` / `port`). */
  fields: Record<string, unknown>;
  /** The module of an implementation Gymkit does not ship (absolute path). */
  entrypoint?: string;
}

export interface StartOptions {
  /** Head server address; port 0 picks a free one (what `gym eval run` does). */
  headHost?: string;
  headPort?: number;
  processPerServer?: boolean;
  /** The merged config, served by the head at `/global_config_dict_yaml` (secrets already hidden). */
  globalConfig?: unknown;
}

export interface RunningServers {
  headUrl: string;
  instances: InstanceInfo[];
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

/** Resolves `{type, name}` refs (or bare names) against a name → URL table, with a clear error. */
export function refResolver(urls: ReadonlyMap<string, string>, types: ReadonlyMap<string, ServerType>) {
  return (ref: ServerRef | string): string => {
    const name = typeof ref === "string" ? ref : ref.name;
    const url = urls.get(name);
    if (!url) throw new Error(`no running server named "${name}" (running: ${[...urls.keys()].join(", ") || "none"})`);
    if (typeof ref !== "string" && types.get(name) !== ref.type) {
      throw new Error(`server "${name}" is a ${types.get(name)}, but was referenced as ${ref.type}`);
    }
    return url;
  };
}

export async function startServers(specs: InstanceSpec[], options: StartOptions = {}): Promise<RunningServers> {
  const ordered = [...specs].sort((a, b) => START_ORDER.indexOf(a.type) - START_ORDER.indexOf(b.type));
  const running = options.processPerServer ? await startChildren(ordered) : await startInProcess(ordered);
  const head = buildHeadServer(
    () => running.instances,
    () => options.globalConfig ?? {},
  );
  let headUrl: string;
  try {
    headUrl = await listen(head, { host: options.headHost ?? DEFAULT_HEAD_HOST, port: options.headPort ?? 0 });
  } catch (error) {
    await running.stop();
    const code = (error as { code?: string }).code;
    if (code === "EADDRINUSE") {
      throw new Error(`the head server port ${options.headPort} is already in use (another \`gym env start\`?); pass --head-port 0 to pick a free one`, { cause: error });
    }
    throw error;
  }
  const urls = new Map(running.instances.map((i) => [i.name, i.url]));
  return {
    headUrl,
    instances: running.instances,
    urlOf: (name) => {
      const url = urls.get(name);
      if (!url) throw new Error(`no running server named "${name}"`);
      return url;
    },
    stop: async () => {
      await head.close();
      await running.stop();
    },
  };
}

interface Started {
  instances: InstanceInfo[];
  stop(): Promise<void>;
}

async function startInProcess(specs: InstanceSpec[]): Promise<Started> {
  const urls = new Map<string, string>();
  const types = new Map(specs.map((s) => [s.name, s.type]));
  const urlOf = refResolver(urls, types);
  const apps: FastifyInstance[] = [];
  const instances: InstanceInfo[] = [];
  const stop = async () => {
    await Promise.allSettled(apps.map((a) => a.close()));
  };
  try {
    for (const spec of specs) {
      const implementation = await loadImplementation(spec.type, spec.implementation, spec.entrypoint);
      const config = implementation.configSchema.parse(stripPlacement(spec.fields));
      const app = await buildInstance(implementation, { name: spec.name, config, urlOf });
      apps.push(app);
      const host = hostOf(spec);
      const url = await listen(app, { host, port: portOf(spec) });
      urls.set(spec.name, url);
      instances.push({ name: spec.name, server_type: spec.type, implementation: spec.implementation, host, port: Number(new URL(url).port), url, pid: process.pid });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { instances, stop };
}

/**
 * Builds one instance. A model whose engine has replicas also answers `GET /replicas` with their
 * counters (what `gym env status --json` shows), and stops probing them when it closes. Every
 * instance answers `GET /retries` with its process's retry counters, which a collector in another
 * process adds to its own (see orchestrate/retry_totals.ts).
 */
export async function buildInstance<C>(implementation: ServerImplementation<C>, context: InstanceContext<C>): Promise<FastifyInstance> {
  const { value: app, pools } = await collectReplicaPools(() => implementation.build(context));
  if (!app.hasRoute({ method: "GET", url: RETRIES_PATH })) app.get(RETRIES_PATH, async () => ({ pid: process.pid, retries: retryStats() }));
  if (pools.length > 0) {
    serveReplicaStats(app, () => pools);
    app.addHook("onClose", async () => pools.forEach((pool) => pool.close()));
  }
  return app;
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

/** What a child process needs to start one instance (written to a temp file, read by the child). */
export interface ChildSpec {
  instance: InstanceSpec;
  host: string;
  port: number;
  urls: Record<string, string>;
  types: Record<string, ServerType>;
}

export const CHILD_ENTRY = join(PACKAGE_ROOT, "dist", "orchestrate", "instance_process.js");

async function startChildren(specs: InstanceSpec[]): Promise<Started> {
  // Every port is fixed before any child starts, so each child knows where all the others will be.
  const placed = await Promise.all(
    specs.map(async (spec) => {
      const host = hostOf(spec);
      const port = portOf(spec) || (await freePort(host));
      return { spec, host, port, url: `http://${host}:${port}` };
    }),
  );
  const urls = Object.fromEntries(placed.map((p) => [p.spec.name, p.url]));
  const types = Object.fromEntries(placed.map((p) => [p.spec.name, p.spec.type]));
  const dir = mkdtempSync(join(tmpdir(), "gym-instances-"));
  const children: ChildProcess[] = [];
  const pids = new Map<string, number>();
  const stop = async () => {
    await Promise.all(children.map((child) => stopChild(child)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(
      placed.map(async ({ spec, host, port }) => {
        const specPath = join(dir, `${spec.name}.json`);
        const childSpec: ChildSpec = { instance: spec, host, port, urls, types };
        writeFileSync(specPath, JSON.stringify(childSpec));
        // An IPC channel: the child exits when it closes, so a dead parent never leaves orphans on ports.
        const child = fork(CHILD_ENTRY, [specPath], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
        children.push(child);
        pids.set(spec.name, child.pid ?? 0);
        await waitReady(child, spec.name);
      }),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const instances = placed.map(({ spec, host, port, url }) => ({
    name: spec.name,
    server_type: spec.type,
    implementation: spec.implementation,
    host,
    port,
    url,
    pid: pids.get(spec.name) ?? 0,
  }));
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
