// The protocol-neutral episode every served protocol (OpenEnv, MCP, ORS) is a thin layer over. It
// drives ANY environment server that speaks NeMo Gym's protocol (a Gymkit-native one or a NeMo Gym
// Python one alike, with no per-environment code), over HTTP, one session cookie per episode:
//
//  - tool environments (NeMo Gym's SimpleResourcesServer, 07d6b0d nemo_gym/base_resources_server.py):
//    `reset(row)` → POST /seed_session; `callTool(name, args)` → POST /{name} in that session;
//    `submit(answer)` → POST /verify with the row and a Responses `response` holding the episode so
//    far (its tool calls, their outputs, then the answer as an assistant message), exactly the body
//    NeMo Gym's simple_agent sends, so the reward is the one `gym eval run` gets for that episode.
//  - Gymnasium-style environments (07d6b0d resources_servers/gymnasium/base.py, as
//    agents/gymnasium_agent.ts plays them): `reset(row)` → POST /reset; a tool call or an answer is one
//    POST /step whose `response` holds that one action; the step's reward, observation and
//    terminated/truncated come back; an environment declaring `supports_explicit_close` gets /close.
//
// Which of the two a server is, is found on the first reset (a Gymnasium server has no /seed_session)
// unless the caller says. Failures are EpisodeErrors with a code (errors.ts) each protocol maps to its
// own error shape. Calls within one episode are serialised.
import { randomUUID } from "node:crypto";
import { call, CallError, joinUrl, NO_RETRY, truncate, type CallResult } from "../http/client.js";
import { CookieJar } from "../http/cookies.js";
import { buildResponse, newId } from "../models/response_object.js";
import { emptyUsage, type FunctionTool, type OutputItem, type ResponsesCreateParams } from "../protocol/index.js";
import { EpisodeError } from "./errors.js";
import type { DatasetRow, DatasetRows } from "./rows.js";

export type EnvironmentKind = "tools" | "gymnasium";

export interface BridgeOptions {
  /** The environment instance's name (shown in messages and by the protocols). */
  name: string;
  /** Base URL of its NeMo Gym-protocol server. */
  url: string;
  /** The rows episodes start from. */
  rows: DatasetRows;
  /** Tool or Gymnasium-style; found on the first reset when not given. */
  kind?: EnvironmentKind;
  /** Deadline of each call to the environment, ms. Default 600 s (verify may ask a judge). */
  timeoutMs?: number;
  /** One line about the environment, for protocols that describe it (OpenEnv's /metadata, ORS). */
  description?: string;
}

/** A prompt message as the row gives it (`content` a string or Responses content parts). */
export interface PromptMessage {
  role: string;
  content: unknown;
}

/** What an episode shows after reset: the prompt, the tools, and the environment's first words. */
export interface EpisodeObservation {
  row_index: number;
  /** The row's input as messages, then the environment's observation (if any) as a user message. */
  messages: PromptMessage[];
  instructions: string | null;
  /** The function tools the row offers (its responses_create_params.tools). */
  tools: FunctionTool[];
  /** The environment's own observation text (Gymnasium-style reset), else null. */
  text: string | null;
  info: Record<string, unknown>;
}

/** The answer to one tool call or one submitted answer. */
export interface StepOutcome {
  action: "tool" | "answer";
  /** The tool's output text (a tool call), else null. */
  output: string | null;
  /** The environment's next observation (Gymnasium-style), else null. */
  observation: string | null;
  /** This step's reward (the verify reward for a tool environment's answer, else 0 for its tools). */
  reward: number;
  /** Sum of the rewards of the episode's steps so far. */
  total_reward: number;
  done: boolean;
  terminated: boolean;
  truncated: boolean;
  /** A tool environment's whole /verify reply (reward and the environment's own fields). */
  verify?: Record<string, unknown>;
  info: Record<string, unknown>;
}

export type EpisodeStatus = "idle" | "running" | "done" | "closed";

export interface EpisodeState {
  episode_id: string;
  environment: string;
  status: EpisodeStatus;
  row_index: number | null;
  step_count: number;
  total_reward: number;
  done: boolean;
}

type Item = Record<string, unknown>;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** One environment server, shared by every episode a protocol opens on it. */
export class EnvironmentBridge {
  private detected: EnvironmentKind | undefined;

  constructor(readonly options: BridgeOptions) {
    this.detected = options.kind;
  }

  get name(): string {
    return this.options.name;
  }

  get rows(): DatasetRows {
    return this.options.rows;
  }

  /** Known after the first reset (or when given). */
  get kind(): EnvironmentKind | undefined {
    return this.detected;
  }

  /** A new, not yet reset episode (its own session). */
  episode(): Episode {
    return new Episode(this);
  }

  /** @internal one POST to the environment in a session; transport failures become environment_error. */
  async post(path: string, body: unknown, cookies: CookieJar): Promise<CallResult> {
    const url = joinUrl(this.options.url, path);
    try {
      return await call(url, { method: "POST", body, cookies, retry: NO_RETRY, timeoutMs: this.options.timeoutMs ?? 600_000 });
    } catch (error) {
      const message = error instanceof CallError ? error.message : String(error);
      throw new EpisodeError("environment_error", `environment "${this.name}": ${message}`);
    }
  }

  /** @internal */
  settle(kind: EnvironmentKind): void {
    this.detected ??= kind;
  }
}

function parseJson(result: CallResult, who: string, route: string): unknown {
  try {
    return JSON.parse(result.text);
  } catch {
    throw new EpisodeError("environment_error", `environment "${who}" ${route} answered ${result.status} with a body that is not JSON: ${truncate(result.text, 200)}`, { status: result.status, body: result.text });
  }
}

/** A non-2xx reply as an EpisodeError: 422 is the environment refusing the arguments. */
function failure(result: CallResult, who: string, route: string, tool?: string): EpisodeError {
  const upstream = { status: result.status, body: result.text };
  if (result.status === 422) return new EpisodeError("invalid_args", `environment "${who}" refused ${route}: ${validationText(result.text)}`, upstream);
  if (result.status === 404 && tool !== undefined) return new EpisodeError("unknown_tool", `environment "${who}" serves no tool "${tool}"`, upstream);
  return new EpisodeError("environment_error", `environment "${who}" ${route} answered ${result.status}: ${truncate(result.text, 500)}`, upstream);
}

/** FastAPI's `{"detail": [{loc, msg}]}` as one line; any other body as it is. */
function validationText(text: string): string {
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    if (Array.isArray(body.detail)) {
      return body.detail.map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).filter((p) => p !== "body").join(".") || "(body)"}: ${d.msg ?? "invalid"}`).join("; ");
    }
    if (typeof body.detail === "string") return body.detail;
  } catch {
    // not JSON: shown as it came
  }
  return truncate(text, 300);
}

function promptMessages(params: ResponsesCreateParams): PromptMessage[] {
  if (typeof params.input === "string") return [{ role: "user", content: params.input }];
  return (params.input as Item[]).filter((item) => typeof item.role === "string").map((item) => ({ role: item.role as string, content: item.content }));
}

function functionTools(params: ResponsesCreateParams): FunctionTool[] {
  return (params.tools ?? []).filter((tool): tool is FunctionTool => isRecord(tool) && tool.type === "function" && typeof tool.name === "string");
}

function rowParams(row: DatasetRow, index: number | null): ResponsesCreateParams {
  const params = row.responses_create_params;
  if (!isRecord(params) || (typeof params.input !== "string" && !Array.isArray(params.input))) {
    throw new EpisodeError("bad_row", `dataset row${index === null ? "" : ` ${index}`} has no responses_create_params.input (a string or a list of messages)`);
  }
  return params as ResponsesCreateParams;
}

function assistantMessage(text: string): OutputItem {
  return { type: "message", id: newId("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] } as OutputItem;
}

function functionCall(name: string, args: Record<string, unknown>): OutputItem & { call_id: string } {
  return { type: "function_call", id: newId("fc"), call_id: newId("call"), name, arguments: JSON.stringify(args), status: "completed" } as OutputItem & { call_id: string };
}

/** Model name the episode's Responses objects carry: the row's, else one naming the client side. */
const CLIENT_MODEL = "protocol-client";

/** One episode over one session of the environment; reset again to start another. */
export class Episode {
  readonly id = randomUUID();
  private status: EpisodeStatus = "idle";
  private row: DatasetRow | undefined;
  private rowIndex: number | null = null;
  private params: ResponsesCreateParams | undefined;
  private cookies = new CookieJar();
  private items: OutputItem[] = [];
  private steps = 0;
  private total = 0;
  private explicitClose = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly bridge: EnvironmentBridge) {}

  /** The episode's transcript so far (tool calls, outputs, answers, observations), as Responses items. */
  get transcript(): readonly OutputItem[] {
    return this.items;
  }

  get currentRow(): DatasetRow | undefined {
    return this.row;
  }

  state(): EpisodeState {
    return {
      episode_id: this.id,
      environment: this.bridge.name,
      status: this.status,
      row_index: this.rowIndex,
      step_count: this.steps,
      total_reward: this.total,
      done: this.status === "done",
    };
  }

  /** Starts (or restarts) the episode on a row: by index, a given row, or the next one in turn. */
  reset(select: { index?: number; row?: DatasetRow } = {}): Promise<EpisodeObservation> {
    return this.serial(() => this.doReset(select));
  }

  /** Calls one of the row's tools with its arguments (an object). */
  callTool(name: string, args: unknown): Promise<StepOutcome> {
    return this.serial(() => this.doCallTool(name, args));
  }

  /** Gives the final answer (a tool environment: scored by /verify; Gymnasium-style: one step). */
  submit(answer: string): Promise<StepOutcome> {
    return this.serial(() => this.doSubmit(answer));
  }

  /** Ends the episode (releasing a Gymnasium environment's slot when it asks for /close); idempotent. */
  close(): Promise<void> {
    return this.serial(async () => {
      if (this.status === "closed") return;
      await this.release();
      this.status = "closed";
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async release(): Promise<void> {
    if (!this.explicitClose) return;
    this.explicitClose = false;
    // Best effort: the episode ends whatever the environment says to its clean-up.
    await this.bridge.post("/close", {}, this.cookies).catch(() => undefined);
  }

  private async doReset(select: { index?: number; row?: DatasetRow }): Promise<EpisodeObservation> {
    if (this.status === "closed") throw new EpisodeError("closed", "the episode is closed; open a new one");
    let row: DatasetRow;
    let index: number | null;
    if (select.row !== undefined) {
      if (!isRecord(select.row)) throw new EpisodeError("bad_row", "the row to reset with must be a JSON object");
      row = select.row;
      index = null;
    } else if (select.index !== undefined) {
      row = this.bridge.rows.at(select.index);
      index = select.index;
    } else {
      ({ row, index } = this.bridge.rows.next());
    }
    const params = rowParams(row, index);
    await this.release();
    // A fresh session for every episode: nothing of the previous one carries over.
    this.cookies = new CookieJar();
    this.items = [];
    this.steps = 0;
    this.total = 0;
    const who = this.bridge.name;
    let kind = this.bridge.kind;
    let text: string | null = null;
    let info: Record<string, unknown> = {};
    if (kind !== "gymnasium") {
      const seeded = await this.bridge.post("/seed_session", row, this.cookies);
      if (seeded.status === 404 && kind === undefined) {
        kind = "gymnasium";
      } else {
        if (seeded.status < 200 || seeded.status >= 300) throw failure(seeded, who, "/seed_session");
        kind = "tools";
        const body = parseJson(seeded, who, "/seed_session");
        if (isRecord(body)) info = body;
      }
    }
    if (kind === "gymnasium") {
      this.cookies = new CookieJar();
      const reset = await this.bridge.post("/reset", row, this.cookies);
      if (reset.status < 200 || reset.status >= 300) throw failure(reset, who, "/reset");
      const body = parseJson(reset, who, "/reset");
      if (!isRecord(body)) throw new EpisodeError("environment_error", `environment "${who}" /reset answered ${typeof body}, not an object`);
      text = typeof body.observation === "string" ? body.observation : null;
      info = isRecord(body.info) ? body.info : {};
      this.explicitClose = info.supports_explicit_close === true;
    }
    this.bridge.settle(kind!);
    this.row = row;
    this.rowIndex = index;
    this.params = params;
    this.status = "running";
    const messages = promptMessages(params);
    if (text) messages.push({ role: "user", content: text });
    return { row_index: index ?? -1, messages, instructions: params.instructions ?? null, tools: functionTools(params), text, info };
  }

  private ready(): { row: DatasetRow; params: ResponsesCreateParams } {
    if (this.status === "closed") throw new EpisodeError("closed", "the episode is closed; open a new one");
    if (this.status === "idle") throw new EpisodeError("not_reset", "the episode has not been reset; reset it with a row first");
    if (this.status === "done") throw new EpisodeError("done", "the episode is over; reset it to start another");
    return { row: this.row!, params: this.params! };
  }

  private async doCallTool(name: string, args: unknown): Promise<StepOutcome> {
    const { row, params } = this.ready();
    if (typeof name !== "string" || name === "") throw new EpisodeError("invalid_args", "a tool call needs a tool name");
    const offered = functionTools(params).map((tool) => tool.name);
    if (!offered.includes(name)) {
      throw new EpisodeError("unknown_tool", `tool "${name}" is not offered by this episode (${offered.length === 0 ? "it has no tools" : `tools: ${offered.join(", ")}`})`);
    }
    if (!isRecord(args)) throw new EpisodeError("invalid_args", `the arguments of tool "${name}" must be a JSON object, got ${Array.isArray(args) ? "an array" : args === null ? "null" : typeof args}`);
    const who = this.bridge.name;
    const callItem = functionCall(name, args);
    if (this.bridge.kind === "gymnasium") {
      const outcome = await this.gymnasiumStep([callItem], row, params, "tool");
      return outcome;
    }
    const result = await this.bridge.post(`/${name}`, args, this.cookies);
    if (result.status < 200 || result.status >= 300) throw failure(result, who, `tool "${name}"`, name);
    // The reply body as it came, as NeMo Gym's simple_agent feeds it back to the model.
    this.items.push(callItem, { type: "function_call_output", call_id: callItem.call_id, output: result.text } as OutputItem);
    this.steps += 1;
    return { action: "tool", output: result.text, observation: null, reward: 0, total_reward: this.total, done: false, terminated: false, truncated: false, info: {} };
  }

  private async doSubmit(answer: string): Promise<StepOutcome> {
    const { row, params } = this.ready();
    if (typeof answer !== "string") throw new EpisodeError("invalid_args", `the answer must be text, got ${answer === null ? "null" : typeof answer}`);
    const message = assistantMessage(answer);
    if (this.bridge.kind === "gymnasium") return this.gymnasiumStep([message], row, params, "answer");
    const who = this.bridge.name;
    this.items.push(message);
    this.steps += 1;
    const response = buildResponse(params, { model: params.model ?? CLIENT_MODEL, output: [...this.items], usage: emptyUsage() });
    const result = await this.bridge.post("/verify", { ...row, response }, this.cookies);
    if (result.status < 200 || result.status >= 300) {
      this.items.pop();
      this.steps -= 1;
      throw failure(result, who, "/verify");
    }
    const body = parseJson(result, who, "/verify");
    if (!isRecord(body) || typeof body.reward !== "number") throw new EpisodeError("environment_error", `environment "${who}" /verify answered no numeric reward`, { status: result.status, body: truncate(result.text, 500) });
    const { responses_create_params: _p, response: _r, ...verify } = body;
    this.total += body.reward;
    this.status = "done";
    return { action: "answer", output: null, observation: null, reward: body.reward, total_reward: this.total, done: true, terminated: true, truncated: false, verify, info: {} };
  }

  private async gymnasiumStep(output: OutputItem[], row: DatasetRow, params: ResponsesCreateParams, action: "tool" | "answer"): Promise<StepOutcome> {
    const who = this.bridge.name;
    const response = buildResponse(params, { model: params.model ?? CLIENT_MODEL, output, usage: emptyUsage() });
    const result = await this.bridge.post("/step", { ...row, response }, this.cookies);
    if (result.status < 200 || result.status >= 300) throw failure(result, who, "/step");
    const body = parseJson(result, who, "/step");
    if (!isRecord(body)) throw new EpisodeError("environment_error", `environment "${who}" /step answered ${typeof body}, not an object`);
    const reward = typeof body.reward === "number" ? body.reward : 0;
    const terminated = body.terminated === true;
    const truncated = body.truncated === true;
    const info = isRecord(body.info) ? body.info : {};
    const observation = typeof body.observation === "string" ? body.observation : null;
    this.items.push(...output);
    let toolOutput: string | null = null;
    const outputs = Array.isArray(info.tool_outputs) ? (info.tool_outputs as Item[]) : [];
    for (const entry of outputs) {
      if (!isRecord(entry) || typeof entry.call_id !== "string" || typeof entry.output !== "string") continue;
      this.items.push({ type: "function_call_output", call_id: entry.call_id, output: entry.output } as OutputItem);
      if (output.some((item) => (item as Item).call_id === entry.call_id)) toolOutput = entry.output;
    }
    if (observation) this.items.push({ type: "message", role: "user", content: observation } as unknown as OutputItem);
    this.steps += 1;
    this.total += reward;
    const done = terminated || truncated;
    if (done) {
      this.status = "done";
      await this.release();
    }
    return { action, output: toolOutput, observation, reward, total_reward: this.total, done, terminated, truncated, info };
  }
}
