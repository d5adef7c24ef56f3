// What `previous_response_id` needs: the conversation behind each response this model server
// created (its input items, then its output items), kept in memory, bounded. A request naming a
// stored response continues that conversation; an unknown or evicted id is a 400 naming it. The
// bounds are RESPONSE_STORE_LIMITS: the most recent entries within both a count and a byte budget
// (sized by the request body and the output), oldest dropped first. `store: false` keeps a
// response out, as OpenAI's Responses API does.
import type { InputItem, ResponseObject, ResponsesCreateParams } from "../protocol/index.js";
import { fieldRefusal } from "./request_fields.js";

export const RESPONSE_STORE_LIMITS = { entries: 1024, bytes: 256 * 1024 * 1024 };

interface Entry {
  items: InputItem[];
  bytes: number;
}

function asItems(input: ResponsesCreateParams["input"]): InputItem[] {
  return typeof input === "string" ? [{ type: "message", role: "user", content: input }] : input;
}

export class ResponseStore {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly limits = RESPONSE_STORE_LIMITS) {}

  get size(): number {
    return this.entries.size;
  }

  /** `params` with `previous_response_id` replaced by the stored conversation it names (a 400 if none). */
  expand(params: ResponsesCreateParams, label: string): ResponsesCreateParams {
    const id = params.previous_response_id;
    if (id === undefined || id === null) return params;
    const entry = this.entries.get(id);
    if (!entry) {
      throw fieldRefusal(
        label,
        "previous_response_id",
        `no response ${JSON.stringify(id)} is stored here (this server keeps the last ${this.limits.entries} responses within ${this.limits.bytes / 1024 / 1024} MiB, in memory, and none sent with store: false)`,
      );
    }
    const { previous_response_id: _previous, ...rest } = params;
    return { ...rest, input: [...entry.items, ...asItems(params.input)] };
  }

  /** Keeps `response` (after `expanded`, the request as the engine saw it) unless the caller said store: false. */
  keep(expanded: ResponsesCreateParams, response: ResponseObject, requestBytes: number): void {
    if (expanded.store === false) return;
    const bytes = requestBytes + JSON.stringify(response.output).length;
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
