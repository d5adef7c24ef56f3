// A test double for the *engine* (we have no GPU): an OpenAI-compatible server on 127.0.0.1 that
// answers `POST /v1/responses` and `POST /v1/chat/completions` from a scripted policy.
// It stands in for OpenAI or vLLM only; every Gymkit component under test is the real one.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { seededRandom } from "../helpers/seeded_random.js";

/** A conversation as the policy sees it, the same whichever API the request came through. */
export interface Turn {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
}

export interface ToolSpec {
  name: string;
  parameters?: unknown;
}

export interface Action {
  text?: string;
  reasoning?: string;
  toolCalls?: Array<{ name: string; arguments: string | Record<string, unknown> }>;
  /** Simulate a generation cut by max tokens. */
  finish?: "stop" | "length";
}

export type Policy = (turns: Turn[], tools: ToolSpec[], request: Record<string, unknown>) => Action;

export interface FakeEngine {
  url: string;
  /** `${url}/v1`, the value a `policy_base_url` takes. */
  baseUrl: string;
  /** Every request body received, in order, with its path. */
  requests: Array<{ path: string; body: Record<string, unknown>; headers: http.IncomingHttpHeaders }>;
  /** How many of each injected fault were served so far (see `faults`). */
  faultsServed: { error: number; reset: number; hang: number };
  /** Requests held open by a `hang` fault whose connection the client has not closed yet. */
  hangingNow(): number;
  close(): Promise<void>;
}

export interface FakeEngineOptions {
  policy?: Policy;
  model?: string;
  /** Reply to every request with this status instead (e.g. simulate a context-length 400). */
  respond?: (path: string, body: Record<string, unknown>) => { status: number; body: unknown } | undefined;
  /** Delay every reply by this many ms (or a per-request amount), e.g. to exercise timeouts. */
  delayMs?: number | ((path: string, body: Record<string, unknown>) => number);
  port?: number;
  /** Keep every request in `requests` (default true; benchmarks turn it off to keep memory flat). */
  recordRequests?: boolean;
  /**
   * Deterministic fault injection for model calls: from `seed`, each request independently answers
   * 500 (`error`), has its connection destroyed (`reset`), or never answers (`hang`).
   */
  faults?: { seed: number; error?: number; reset?: number; hang?: number };
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${(++counter).toString(36).padStart(6, "0")}`;
const countTokens = (text: string) => (text.trim() ? text.trim().split(/\s+/).length : 0);

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p: any) => (typeof p?.text === "string" ? p.text : typeof p === "string" ? p : "")).join("");
  }
  return "";
}

function turnsFromResponses(body: any): Turn[] {
  const turns: Turn[] = [];
  if (typeof body.instructions === "string") turns.push({ role: "system", content: body.instructions });
  if (typeof body.input === "string") return [...turns, { role: "user", content: body.input }];
  for (const item of body.input ?? []) {
    const type = item.type ?? "message";
    if (type === "message") {
      const role = item.role === "developer" ? "system" : item.role;
      turns.push({ role, content: contentText(item.content) });
    } else if (type === "function_call") {
      const last = turns[turns.length - 1];
      const call = { id: item.call_id, name: item.name, arguments: item.arguments };
      if (last?.role === "assistant" && last.toolCalls) last.toolCalls.push(call);
      else turns.push({ role: "assistant", content: "", toolCalls: [call] });
    } else if (type === "function_call_output") {
      turns.push({ role: "tool", content: contentText(item.output), toolCallId: item.call_id });
    }
  }
  return turns;
}

function turnsFromChat(body: any): Turn[] {
  return (body.messages ?? []).map((m: any): Turn => {
    const role = m.role === "developer" ? "system" : m.role;
    const turn: Turn = { role, content: contentText(m.content) };
    if (m.tool_calls) {
      turn.toolCalls = m.tool_calls.map((c: any) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
    }
    if (m.tool_call_id) turn.toolCallId = m.tool_call_id;
    return turn;
  });
}

function toolsOf(body: any): ToolSpec[] {
  return (body.tools ?? []).map((t: any) => (t.function ? { name: t.function.name, parameters: t.function.parameters } : { name: t.name, parameters: t.parameters }));
}

const argString = (a: string | Record<string, unknown>) => (typeof a === "string" ? a : JSON.stringify(a));

function responsesReply(body: any, action: Action, model: string, promptTokens: number) {
  const output: any[] = [];
  if (action.reasoning) {
    output.push({ id: nextId("rs"), type: "reasoning", summary: [{ type: "summary_text", text: action.reasoning }] });
  }
  if (action.text !== undefined && action.text !== "") {
    output.push({
      id: nextId("msg"),
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: action.text, annotations: [] }],
    });
  }
  for (const call of action.toolCalls ?? []) {
    output.push({ id: nextId("fc"), type: "function_call", call_id: nextId("call"), name: call.name, arguments: argString(call.arguments), status: "completed" });
  }
  const outputTokens = countTokens(action.text ?? "") + countTokens(action.reasoning ?? "") + (action.toolCalls?.length ?? 0) * 5;
  const incomplete = action.finish === "length";
  return {
    id: nextId("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model: body.model ?? model,
    output,
    status: incomplete ? "incomplete" : "completed",
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: body.tools ?? [],
    usage: {
      input_tokens: promptTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: countTokens(action.reasoning ?? "") },
      total_tokens: promptTokens + outputTokens,
    },
  };
}

function chatReply(body: any, action: Action, model: string, promptTokens: number) {
  const message: any = { role: "assistant", content: action.text ?? null };
  if (action.reasoning) message.reasoning_content = action.reasoning;
  if (action.toolCalls?.length) {
    message.tool_calls = action.toolCalls.map((c) => ({ id: nextId("chatcmpl-tool"), type: "function", function: { name: c.name, arguments: argString(c.arguments) } }));
  }
  const completionTokens = countTokens(action.text ?? "") + countTokens(action.reasoning ?? "") + (action.toolCalls?.length ?? 0) * 5;
  return {
    id: nextId("chatcmpl"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? model,
    choices: [{ index: 0, message, finish_reason: action.finish === "length" ? "length" : action.toolCalls?.length ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

export async function startFakeEngine(options: FakeEngineOptions = {}): Promise<FakeEngine> {
  const policy = options.policy ?? examplePolicy;
  const model = options.model ?? "fake-model";
  const requests: FakeEngine["requests"] = [];
  const random = options.faults ? seededRandom(options.faults.seed) : undefined;
  const hanging = new Set<http.ServerResponse>();
  const faultsServed = { error: 0, reset: 0, hang: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      let delay = 0;
      const send = (status: number, payload: unknown) => {
        const text = JSON.stringify(payload);
        const write = () => {
          if (res.destroyed) return;
          res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
          res.end(text);
        };
        if (delay > 0) setTimeout(write, delay);
        else write();
      };
      if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
        return send(200, { object: "list", data: [{ id: model, object: "model", owned_by: "fake" }] });
      }
      if (req.method === "GET" && (path === "/" || path === "/health")) return send(200, { status: "ok" });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        return send(400, { error: { message: "invalid JSON" } });
      }
      if (options.recordRequests !== false) requests.push({ path, body, headers: req.headers });
      delay = typeof options.delayMs === "function" ? options.delayMs(path, body) : (options.delayMs ?? 0);
      if (random && options.faults && (path.endsWith("/responses") || path.endsWith("/chat/completions"))) {
        const roll = random();
        const { error = 0, reset = 0, hang = 0 } = options.faults;
        if (roll < error) {
          faultsServed.error++;
          return send(500, { error: { message: "injected fault: internal error" } });
        }
        if (roll < error + reset) {
          faultsServed.reset++;
          return req.socket.destroy();
        }
        if (roll < error + reset + hang) {
          faultsServed.hang++;
          hanging.add(res);
          res.on("close", () => hanging.delete(res));
          return;
        }
      }
      const override = options.respond?.(path, body);
      if (override) return send(override.status, override.body);
      try {
        if (path.endsWith("/responses")) {
          const turns = turnsFromResponses(body);
          const action = policy(turns, toolsOf(body), body);
          return send(200, responsesReply(body, action, model, countTokens(turns.map((t) => t.content).join(" "))));
        }
        if (path.endsWith("/chat/completions")) {
          const turns = turnsFromChat(body);
          const action = policy(turns, toolsOf(body), body);
          return send(200, chatReply(body, action, model, countTokens(turns.map((t) => t.content).join(" "))));
        }
      } catch (error) {
        return send(500, { error: { message: String(error) } });
      }
      send(404, { error: { message: `no route ${path}` } });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    faultsServed,
    hangingNow: () => hanging.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// A policy that plays the shipped example environments the way a capable model would.

const CITY_ALIASES: Record<string, string> = { sf: "San Francisco", nyc: "New York" };
const KNOWN_CITIES = ["San Francisco", "New York", "Seattle", "London", "Tokyo"];

function findCity(text: string): string {
  for (const city of KNOWN_CITIES) if (text.includes(city)) return city;
  for (const [alias, city] of Object.entries(CITY_ALIASES)) if (new RegExp(`\\b${alias}\\b`, "i").test(text)) return city;
  return "San Francisco";
}

/** The model's "knowledge" for example_multi_step: every shipped query is about heat. */
function synonymsOf(term: string, system: string): string[] {
  const out: string[] = [];
  const re = /The term '([^']+)' has a synonym '([^']+)'/g;
  for (const m of system.matchAll(re)) if (m[1]!.toLowerCase() === term.toLowerCase()) out.push(m[2]!);
  return out;
}

export const examplePolicy: Policy = (turns, tools) => {
  const names = new Set(tools.map((t) => t.name));
  const user = [...turns].reverse().find((t) => t.role === "user")?.content ?? "";
  const toolResults = turns.filter((t) => t.role === "tool");
  const afterLastUser = turns.slice(turns.findLastIndex((t) => t.role === "user") + 1);
  const resultsNow = afterLastUser.filter((t) => t.role === "tool");

  if (names.has("get_weather")) {
    if (resultsNow.length === 0) return { toolCalls: [{ name: "get_weather", arguments: { city: findCity(user) } }] };
    const info = JSON.parse(resultsNow[resultsNow.length - 1]!.content) as { weather_description?: string };
    return { text: info.weather_description ?? "I could not get the weather." };
  }
  if (names.has("increment_counter")) {
    const adds = [...user.matchAll(/add (\d+)/g)].map((m) => Number(m[1]));
    const calls = afterLastUser.flatMap((t) => t.toolCalls ?? []);
    const incrementsDone = calls.filter((c) => c.name === "increment_counter").length;
    if (incrementsDone < adds.length) return { toolCalls: adds.slice(incrementsDone).map((count) => ({ name: "increment_counter", arguments: { count } })) };
    if (!calls.some((c) => c.name === "get_counter_value")) return { toolCalls: [{ name: "get_counter_value", arguments: {} }] };
    const last = JSON.parse(toolResults[toolResults.length - 1]!.content) as { count?: number };
    return { text: `The count is ${last.count}.` };
  }
  if (names.has("get_synonym_value")) {
    const system = turns.filter((t) => t.role === "system").map((t) => t.content).join("\n");
    const synonyms = synonymsOf("Hot", system);
    const calls = afterLastUser.flatMap((t) => t.toolCalls ?? []);
    if (!calls.some((c) => c.name === "get_synonym_value")) {
      return { reasoning: "The query is about heat, so the term is Hot.", toolCalls: synonyms.map((synonym) => ({ name: "get_synonym_value", arguments: { synonym } })) };
    }
    if (!calls.some((c) => c.name === "extract_synonym_values")) {
      const values = resultsNow.map((t) => (JSON.parse(t.content) as { synonym_value: number }).synonym_value);
      return { toolCalls: [{ name: "extract_synonym_values", arguments: { synonym_values: values } }] };
    }
    return { text: "Done: I extracted the synonym values." };
  }
  return { text: `You said: ${user}` };
};
