// One episode of the generic tool loop (NeMo Gym's simple_agent): model → tool calls → model …
// until the model answers without calling a tool, is cut short, or `max_steps` is reached.
import { addUsage, type ResponseObject, type ResponsesCreateParams, type Usage } from "../protocol/index.js";

type Item = Record<string, unknown>;

export interface EpisodeIO {
  /** Calls the model server's `/v1/responses`. */
  model(body: Record<string, unknown>): Promise<ResponseObject>;
  /** Calls the environment's `/<name>` with the parsed arguments; returns the raw reply body. */
  tool(name: string, args: unknown): Promise<string>;
}

export interface EpisodeOptions {
  /** Model calls allowed; null (or 0, as in NeMo Gym) = until the model stops. */
  maxSteps: number | null;
}

/** Python's `json.dumps` layout, so outputs match what NeMo Gym's agent would have fed the model. */
function invalidArgumentsOutput(error: unknown): string {
  const reason = error instanceof Error ? `${error.name}(${JSON.stringify(error.message)})` : String(error);
  return `{"error": ${JSON.stringify(`Invalid tool call arguments: ${reason}`)}}`;
}

async function runTool(call: Item, io: EpisodeIO): Promise<string> {
  let args: unknown;
  try {
    args = JSON.parse(String(call.arguments));
  } catch (error) {
    // Fed back to the model instead of calling the environment with garbage.
    return invalidArgumentsOutput(error);
  }
  return io.tool(String(call.name), args);
}

/**
 * Returns the last model response with `output` = every item produced in the episode (model items
 * and tool outputs, interleaved in order) and `usage` summed over all model calls.
 */
export async function runEpisode(params: ResponsesCreateParams, io: EpisodeIO, options: EpisodeOptions): Promise<ResponseObject> {
  const input: unknown[] =
    typeof params.input === "string" ? [{ role: "user", content: params.input, type: "message" }] : params.input;
  const produced: Item[] = [];
  let usage: Usage | null = null;
  let last: ResponseObject | undefined;
  for (let step = 1; ; step++) {
    const response = await io.model({ ...params, input: [...input, ...produced] });
    last = response;
    if (response.usage) usage = usage ? addUsage(usage, response.usage) : response.usage;
    const output = response.output as Item[];
    produced.push(...output);

    if (response.incomplete_details) break;
    const calls = output.filter((item) => item.type === "function_call");
    const answered = output.some((item) => item.type === "message" && item.role === "assistant");
    if (calls.length === 0 && answered) break;
    // Not in NeMo Gym, which would ask again forever: with nothing produced, the next request is
    // identical to this one, so a deterministic model would loop without end.
    if (output.length === 0) break;

    // In order: a later call may depend on the state an earlier one left behind.
    for (const call of calls) {
      const text = await runTool(call, io);
      produced.push({ type: "function_call_output", call_id: call.call_id, output: text });
    }
    if (options.maxSteps && step >= options.maxSteps) break;
  }
  return { ...last, output: produced as ResponseObject["output"], usage };
}
