// What `previous_response_id` needs: the conversation behind each response this model server
// created (its input items, then its output items), kept in memory, bounded. A request naming a
// stored response continues that conversation; an unknown or evicted id is a 400 naming it. The
// bounds: the most recent RESPONSE_STORE_ENTRIES entries within a byte budget (sized by the request
// body and an estimate of the output's JSON length; GYM_RESPONSE_STORE_MB, default 64, 0 = off), oldest dropped first.
// `store: false` keeps a response out, as OpenAI's Responses API does.
import type { InputItem, ResponseObject, ResponsesCreateParams } from "../protocol/index.js";
import { fieldRefusal } from "./request_fields.js";

export const RESPONSE_STORE_ENTRIES = 1024;
export const RESPONSE_STORE_DEFAULT_MB = 64;
const MIB = 1024 * 1024;

export interface ResponseStoreLimits {
  entries: number;
  bytes: number;
}

/** The bounds, from GYM_RESPONSE_STORE_MB (a start-up error naming it when it makes no sense). */
export function responseStoreLimits(env: NodeJS.ProcessEnv = process.env): ResponseStoreLimits {
  const raw = env.GYM_RESPONSE_STORE_MB;
  if (raw === undefined || raw.trim() === "") return { entries: RESPONSE_STORE_ENTRIES, bytes: RESPONSE_STORE_DEFAULT_MB * MIB };
  const mb = Number(raw);
  if (!Number.isFinite(mb) || mb < 0) {
    throw new Error(`GYM_RESPONSE_STORE_MB must be a number of MiB >= 0 (0 turns the previous_response_id store off), got ${JSON.stringify(raw)}`);
  }
  return { entries: RESPONSE_STORE_ENTRIES, bytes: mb * MIB };
}

interface Entry {
  items: InputItem[];
  bytes: number;
}

/**
 * About the length of `JSON.stringify(value)` (escapes not counted, numbers by their digits), without
 * building that text: the store only needs a size to budget by, once per model call.
 */
export function jsonSizeEstimate(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number") return numberSize(value);
  if (typeof value === "boolean") return value ? 4 : 5;
  if (value === null || typeof value !== "object") return 4;
  if (Array.isArray(value)) {
    let size = 2 + Math.max(0, value.length - 1);
    for (const item of value) size += jsonSizeEstimate(item);
    return size;
  }
  let size = 2;
  let members = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined || typeof member === "function") continue;
    size += key.length + 3 + jsonSizeEstimate(member);
    members++;
  }
  return members > 0 ? size + members - 1 : size;
}

function numberSize(n: number): number {
  if (!Number.isInteger(n) || Math.abs(n) >= 1e15) return 20;
  let digits = n < 0 ? 2 : 1;
  for (let rest = Math.abs(n); rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits;
}

function asItems(input: ResponsesCreateParams["input"]): InputItem[] {
  return typeof input === "string" ? [{ type: "message", role: "user", content: input }] : input;
}

export class ResponseStore {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly limits: ResponseStoreLimits = responseStoreLimits()) {}

  get size(): number {
    return this.entries.size;
  }

  /** `params` with `previous_response_id` replaced by the stored conversation it names (a 400 if none). */
  expand(params: ResponsesCreateParams, label: string): ResponsesCreateParams {
    const id = params.previous_response_id;
    if (id === undefined || id === null) return params;
    const entry = this.entries.get(id);
    if (!entry) {
      const kept =
        this.limits.bytes === 0
          ? "this server's response store is off (GYM_RESPONSE_STORE_MB=0); send the whole conversation as input"
          : `this server keeps the last ${this.limits.entries} responses within ${this.limits.bytes / MIB} MiB (GYM_RESPONSE_STORE_MB), in memory, and none sent with store: false`;
      throw fieldRefusal(label, "previous_response_id", `no response ${JSON.stringify(id)} is stored here (${kept})`);
    }
    const { previous_response_id: _previous, ...rest } = params;
    return { ...rest, input: [...entry.items, ...asItems(params.input)] };
  }

  /** Keeps `response` (after `expanded`, the request as the engine saw it) unless the caller said store: false. */
  keep(expanded: ResponsesCreateParams, response: ResponseObject, requestBytes: number): void {
    if (expanded.store === false) return;
    const bytes = requestBytes + jsonSizeEstimate(response.output);
    if (bytes > this.limits.bytes) return;
    const items = [...asItems(expanded.input), ...(response.output as InputItem[])];
    this.entries.set(response.id, { items, bytes });
    this.bytes += bytes;
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.limits.entries && this.bytes <= this.limits.bytes) break;
      this.entries.delete(id);
      this.bytes -= entry.bytes;
    }
  }
}
