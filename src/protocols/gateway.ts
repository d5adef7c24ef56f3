// One protocol gateway per served environment: a Gymkit HTTP server (http/server.ts: health, host
// check, body limits, error handling) on its own port, each protocol layer mounted under its own path
// prefix (`/openenv`, `/mcp`, `/ors`, ...), all over the same EnvironmentBridge. WebSocket upgrades on
// the port are dispatched by path to the layer that registered it; any other upgrade is refused.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyInstance } from "fastify";
import { hostAllowed } from "../http/host_check.js";
import { createServer, listen } from "../http/server.js";
import type { EnvironmentBridge } from "./episode.js";

export interface ProtocolSettings {
  /** Episodes (sessions) a protocol holds at once on this environment; past it new ones are refused. */
  maxSessions: number;
  /**
   * Seconds a session (OpenEnv, MCP or ORS) may go without activity before it is closed, its episode
   * ended and its slot freed (OpenEnv's `session_timeout`). None: OpenEnv and MCP sessions live as long
   * as their client keeps them; ORS sessions get its reference server's 900 s.
   */
  sessionTimeout?: number;
  /** How often idle sessions are looked for, in seconds (default OpenEnv's: a quarter of the timeout, at least 5). */
  reapEvery?: number;
}

export const DEFAULT_PROTOCOL_SETTINGS: ProtocolSettings = { maxSessions: 4096 };

export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** What a protocol layer is given to mount itself. */
export interface ProtocolMount {
  /** The gateway's Fastify app: register routes under `prefix`. */
  app: FastifyInstance;
  /** This layer's path prefix, e.g. `/openenv` (no trailing slash). */
  prefix: string;
  bridge: EnvironmentBridge;
  settings: ProtocolSettings;
  /** Takes the WebSocket upgrades of one exact path (prefix included) on this port. */
  onUpgrade(path: string, handler: UpgradeHandler): void;
  /** Runs when the gateway closes (close sockets, end episodes). */
  onClose(hook: () => void | Promise<void>): void;
}

export interface ProtocolLayer {
  /** The name `--protocols` takes, and the path prefix. */
  name: string;
  /** One line for `gym env status` and `--help`. */
  summary: string;
  /** The path its clients are given, as `gym env status` lists it (default `/<name>`; "" the gateway's root). */
  endpointPath?: string;
  mount(context: ProtocolMount): void | Promise<void>;
}

export interface ProtocolEndpoint {
  environment: string;
  protocol: string;
  url: string;
}

export interface RunningGateway {
  url: string;
  endpoints: ProtocolEndpoint[];
  close(): Promise<void>;
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Builds the gateway app with `layers` mounted, not yet listening. */
export async function buildGateway(bridge: EnvironmentBridge, layers: readonly ProtocolLayer[], settings: ProtocolSettings = DEFAULT_PROTOCOL_SETTINGS): Promise<FastifyInstance> {
  const app = createServer({ name: `${bridge.name}-protocols` });
  const upgrades = new Map<string, UpgradeHandler>();
  for (const layer of layers) {
    await layer.mount({
      app,
      prefix: `/${layer.name}`,
      bridge,
      settings,
      onUpgrade: (path, handler) => upgrades.set(path, handler),
      // Before the server stops listening: open WebSocket connections would hold its close forever.
      onClose: (hook) => app.addHook("preClose", async () => hook()),
    });
  }
  app.server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const address = app.server.address();
    const bound = address && typeof address === "object" ? address.address : "127.0.0.1";
    if (!hostAllowed(bound, request.headers.host)) return refuseUpgrade(socket, 403, "Forbidden");
    const path = (request.url ?? "/").split("?", 1)[0]!;
    const handler = upgrades.get(path);
    if (!handler) return refuseUpgrade(socket, 404, "Not Found");
    handler(request, socket, head);
  });
  return app;
}

/** Builds and starts a gateway; its endpoints are `<url>/<protocol>` (or the layer's endpointPath). */
export async function startGateway(
  bridge: EnvironmentBridge,
  layers: readonly ProtocolLayer[],
  options: { host?: string; port?: number; settings?: ProtocolSettings } = {},
): Promise<RunningGateway> {
  const app = await buildGateway(bridge, layers, options.settings);
  let url: string;
  try {
    url = await listen(app, { host: options.host ?? "127.0.0.1", port: options.port ?? 0 });
  } catch (error) {
    await app.close();
    throw error;
  }
  return {
    url,
    endpoints: layers.map((layer) => ({ environment: bridge.name, protocol: layer.name, url: `${url}${layer.endpointPath ?? `/${layer.name}`}` })),
    close: () => app.close(),
  };
}
