// A small kit for testing an environment (or an agent) the way it runs: a real server on 127.0.0.1,
// talked to over HTTP with a cookie jar per simulated rollout. Environment authors use it in the
// test that ships beside their definition.
import { readFileSync } from "node:fs";
import type { HttpApp } from "../http/app.js";
import { call, NO_RETRY } from "../http/client.js";
import { CookieJar } from "../http/cookies.js";
import type { ServerImplementation } from "../http/implementation.js";
import type { ServerRef } from "../protocol/index.js";

export interface RunningInstance {
  name: string;
  url: string;
  app: HttpApp;
  /** POSTs JSON (GET when `body` is undefined); returns the status and the parsed body (text if not JSON). */
  request(path: string, body?: unknown, cookies?: CookieJar): Promise<{ status: number; body: any; text: string }>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Instance name; defaults to the implementation id. */
  name?: string;
  /** Raw config fields, validated by the implementation's schema (so defaults apply). */
  config?: Record<string, unknown>;
  /** Base URLs of the other instances this one refers to, by instance name. */
  servers?: Record<string, string>;
}

export async function startInstance<C>(implementation: ServerImplementation<C>, options: StartOptions = {}): Promise<RunningInstance> {
  const name = options.name ?? implementation.id;
  const config = implementation.configSchema.parse(options.config ?? {});
  const urlOf = (ref: ServerRef | string) => {
    const target = typeof ref === "string" ? ref : ref.name;
    const url = options.servers?.[target];
    if (!url) throw new Error(`${name} refers to "${target}", which this test did not start`);
    return url;
  };
  const app = await implementation.build({ name, config, urlOf });
  const url = await app.listen();
  return {
    name,
    url,
    app,
    async request(path, body, cookies) {
      const result = await call(`${url}${path}`, { body, cookies, retry: NO_RETRY, method: body === undefined ? "GET" : "POST" });
      let parsed: unknown = result.text;
      try {
        parsed = JSON.parse(result.text);
      } catch {
        // Not JSON: keep the text.
      }
      return { status: result.status, body: parsed, text: result.text };
    },
    close: () => app.close(),
  };
}

/** A minimal Responses object around `output`, as `/verify` requires one. */
export function responseWith(output: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: "resp_test", object: "response", created_at: 0, model: "test-model", output, status: "completed", ...extra };
}

/** A `function_call` output item. Arguments given as an object are JSON-encoded. */
export function functionCall(name: string, args: string | Record<string, unknown>, callId = `call_${name}`): Record<string, unknown> {
  return { type: "function_call", name, arguments: typeof args === "string" ? args : JSON.stringify(args), call_id: callId };
}

/** An assistant `message` output item. */
export function assistantMessage(text: string): Record<string, unknown> {
  return { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
}

/**
 * Plays a stored rollout (one line of an environment's `data/example_rollouts.jsonl`) back against a
 * running environment the way the agent played it: seeds a fresh session with the row, calls every
 * tool the model called with the arguments it gave, then asks `/verify`. The recorded reward is
 * removed first, so the answer's reward is the environment's own. Returns `/verify`'s answer.
 */
export async function replayRollout(instance: RunningInstance, rollout: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const { reward: _recorded, response, ...row } = rollout;
  const cookies = new CookieJar();
  const seeded = await instance.request("/seed_session", row, cookies);
  if (seeded.status !== 200) throw new Error(`/seed_session answered ${seeded.status}: ${seeded.text}`);
  const output = ((response as { output?: unknown } | undefined)?.output ?? []) as Array<Record<string, unknown>>;
  for (const item of output) {
    if (item.type !== "function_call" || typeof item.name !== "string") continue;
    // A call the model garbled is sent as the agent sent it: the tool's answer does not matter here,
    // only the state it leaves behind.
    let args: unknown = item.arguments;
    try {
      args = JSON.parse(String(item.arguments));
    } catch {
      // Not JSON: send the text.
    }
    await instance.request(`/${item.name}`, args, cookies);
  }
  const verified = await instance.request("/verify", { ...row, response }, cookies);
  return { status: verified.status, body: verified.body };
}

/** One stored rollout played back: what it recorded and what the environment scores now. */
export interface ReplayedLine {
  /** 1-based line of `example_rollouts.jsonl`. */
  line: number;
  recorded: unknown;
  status: number;
  reward: unknown;
}

/**
 * Plays back every line of `<dataFolder>/example_rollouts.jsonl` (see replayRollout). Each rollout is
 * joined to its task's row in `<dataFolder>/example.jsonl`, by `_ng_task_index` or, for a recording
 * that has none (NeMo Gym's do not always echo every row field), by the user's prompt; a rollout with
 * no row throws, naming its line. `dataFolder` is a URL, e.g. `new URL("./data/", import.meta.url)`.
 */
export async function replayExampleRollouts(instance: RunningInstance, dataFolder: URL): Promise<ReplayedLine[]> {
  const rows = readJsonlFile(new URL("example.jsonl", dataFolder));
  const rollouts = readJsonlFile(new URL("example_rollouts.jsonl", dataFolder));
  const results: ReplayedLine[] = [];
  for (const [index, rollout] of rollouts.entries()) {
    const taskIndex = rollout._ng_task_index;
    const row = (typeof taskIndex === "number" ? rows[taskIndex] : undefined) ?? rows.find((candidate) => userPrompt(candidate) === userPrompt(rollout));
    if (!row) throw new Error(`example_rollouts.jsonl line ${index + 1}: no row of example.jsonl has its task`);
    const verified = await replayRollout(instance, { ...row, ...rollout });
    results.push({ line: index + 1, recorded: rollout.reward, status: verified.status, reward: verified.body?.reward });
  }
  return results;
}

/** The objects of a JSONL file (blank lines skipped); a line that is not JSON throws, naming the file and line. */
export function readJsonlFile(url: URL): Array<Record<string, any>> {
  const lines = readFileSync(url, "utf8").split("\n");
  return lines.flatMap((text, index) => {
    if (text.trim() === "") return [];
    try {
      return [JSON.parse(text) as Record<string, any>];
    } catch (error) {
      throw new Error(`${url.pathname} line ${index + 1}: not JSON (${(error as Error).message})`, { cause: error });
    }
  });
}

/** The user's messages of a row or rollout: what names its task when nothing else does. */
function userPrompt(line: Record<string, any>): string {
  const input = line.responses_create_params?.input;
  return JSON.stringify(Array.isArray(input) ? input.filter((m: any) => m?.role === "user").map((m: any) => m.content) : input);
}
