// What building one server instance takes, apart from starting the set of them (start.ts): the
// resolver of refs between servers, the build itself (with the routes every instance adds), and the
// spec a server's own process receives. `gym env start --process-per-server` forks one process per
// server (instance_process.ts) that imports this module and not start.ts, which would bring the head
// server, the rollout service and the collector behind it, YAML and the protocol gateways into every
// server's start-up (issue 23).
import type { HttpApp } from "../http/app.js";
import { limitsNow, settledLimits } from "../http/adaptive_limit.js";
import type { InstanceContext, ServerImplementation } from "../http/implementation.js";
import { retryStats, RETRIES_PATH } from "../http/retry_stats.js";
import { fastifyOf } from "../http/server.js";
import { collectReplicaPools, serveReplicaStats } from "../models/replicas.js";
import type { ServerRef, ServerType } from "../protocol/index.js";
import type { PythonServerLocation } from "../config/nemo_gym_checkout.js";

export interface InstanceSpec {
  name: string;
  type: ServerType;
  implementation: string;
  /** Validated implementation fields (may include `host` / `port`). */
  fields: Record<string, unknown>;
  /** The module of an implementation Gymkit does not ship (absolute path). */
  entrypoint?: string;
  /** A NeMo Gym Python server: launched from its checkout as `ng_run` does (orchestrate/python_server.ts). */
  python?: PythonServerLocation;
  /** A server already running elsewhere: not started, only checked and registered with the head. */
  externalUrl?: string;
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

/**
 * Builds one instance. A model whose engine has replicas also answers `GET /replicas` with their
 * counters (what `gym env status --json` shows), and stops probing them when it closes. Every
 * instance answers `GET /retries` with its process's retry counters, which a collector in another
 * process adds to its own (see orchestrate/retry_totals.ts).
 */
export async function buildInstance<C>(implementation: ServerImplementation<C>, context: InstanceContext<C>): Promise<HttpApp> {
  const { value: built, pools } = await collectReplicaPools(() => implementation.build(context));
  const app = fastifyOf(built);
  // With `--concurrency auto` the reply also carries this process's limits: as they stand, for the
  // collector's live line, and where they settled, for its summary at the end of the run.
  if (!app.hasRoute({ method: "GET", url: RETRIES_PATH })) app.get(RETRIES_PATH, async () => ({ pid: process.pid, retries: retryStats(), limits: limitsNow(), settled: settledLimits() }));
  if (pools.length > 0) {
    serveReplicaStats(app, () => pools);
    app.addHook("onClose", async () => pools.forEach((pool) => pool.close()));
  }
  return built;
}

/**
 * What a child process needs to start one instance. Sent over the IPC channel, never written to a
 * file: it holds the instance's fields, API keys included.
 */
export interface ChildSpec {
  instance: InstanceSpec;
  host: string;
  port: number;
  urls: Record<string, string>;
  types: Record<string, ServerType>;
}
