// A small OpenEnv server written from OpenEnv's spec (huggingface/OpenEnv 385de5eb,
// src/openenv/core/env_server/http_server.py and types.py): it stands in for a third-party OpenEnv
// environment that Gymkit drives (src/protocols/drive/openenv.ts). `/ws` holds one game per
// connection: `reset` (seed → the secret digit seed % 10), `step` with OpenEnv's MCP actions
// (`list_tools`, `call_tool` of its one tool `hint`) or a text action `{message}` guessing the digit
// (reward 1 when right; the episode ends); `state`; `close`. Errors come back as OpenEnv's
// `{type: "error", data: {message, code}}`; past `maxSessions` a connection gets CAPACITY_REACHED.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";

export interface OpenEnvStandin {
  url: string;
  /** Every `reset` received, in order. */
  resets: Array<Record<string, unknown>>;
  /** Connections open now. */
  active(): number;
  close(): Promise<void>;
}

const HINT_TOOL = { name: "hint", description: "Tells the secret digit.", input_schema: { type: "object", properties: {}, required: [] } };

export async function startOpenEnvStandin(options: { maxSessions?: number } = {}): Promise<OpenEnvStandin> {
  const maxSessions = options.maxSessions ?? 64;
  const resets: Array<Record<string, unknown>> = [];
  const server = http.createServer((request, response) => {
    const send = (status: number, body: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (request.url === "/health") return send(200, { status: "healthy" });
    if (request.url === "/metadata") return send(200, { name: "digit_guess", description: "Guess a secret digit." });
    return send(404, { detail: "Not Found" });
  });
  const sockets = new WebSocketServer({ server, path: "/ws" });
  let open = 0;
  sockets.on("connection", (socket: WebSocket) => {
    const reply = (type: string, data: Record<string, unknown>) => socket.send(JSON.stringify({ type, data }));
    const error = (code: string, message: string) => reply("error", { message, code });
    if (open >= maxSessions) {
      reply("error", { message: `Server at capacity (${open}/${maxSessions} sessions)`, code: "CAPACITY_REACHED", active_sessions: open, max_sessions: maxSessions });
      socket.close();
      return;
    }
    open++;
    socket.on("close", () => open--);
    let game: { secret: number; steps: number; done: boolean; episode_id: string | null } | undefined;
    socket.on("message", (raw) => {
      let message: { type?: unknown; data?: Record<string, unknown> };
      try {
        message = JSON.parse(String(raw));
      } catch (e) {
        return error("INVALID_JSON", `Invalid JSON: ${(e as Error).message}`);
      }
      const data = message.data ?? {};
      switch (message.type) {
        case "reset": {
          resets.push(data);
          const seed = typeof data.seed === "number" ? data.seed : 0;
          game = { secret: seed % 10, steps: 0, done: false, episode_id: typeof data.episode_id === "string" ? data.episode_id : null };
          return reply("observation", { observation: { prompt: "Guess the secret digit (0-9). Answer with the digit alone." }, reward: null, done: false });
        }
        case "step": {
          if (!game) return error("EXECUTION_ERROR", "step before reset");
          if (game.done) return error("EXECUTION_ERROR", "the episode is over; reset first");
          game.steps++;
          if (data.type === "list_tools") return reply("observation", { observation: { tools: [HINT_TOOL] }, reward: null, done: false });
          if (data.type === "call_tool") {
            if (data.tool_name !== "hint") {
              return reply("observation", { observation: { tool_name: data.tool_name, result: null, error: { error_type: "tool_not_found", message: `no tool ${String(data.tool_name)}` } }, reward: 0, done: false });
            }
            return reply("observation", { observation: { tool_name: "hint", result: `the secret digit is ${game.secret}`, error: null }, reward: 0, done: false });
          }
          if (typeof data.message !== "string" || Object.keys(data).some((k) => k !== "message" && k !== "metadata")) {
            return reply("error", { message: "Invalid message", code: "VALIDATION_ERROR", errors: [{ loc: ["message"], msg: "Field required" }] });
          }
          const right = data.message.trim() === String(game.secret);
          game.done = true;
          return reply("observation", { observation: { message: right ? "correct" : `wrong, it was ${game.secret}` }, reward: right ? 1 : 0, done: true });
        }
        case "state":
          return reply("state", { episode_id: game?.episode_id ?? null, step_count: game?.steps ?? 0 });
        case "close":
          return socket.close();
        default:
          return error("UNKNOWN_TYPE", `Unknown message type: ${String(message.type)}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    resets,
    active: () => open,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
