// `scripted_model`: a policy (and judge) that answers from a script instead of an engine — each
// rollout's turns are written out in advance, keyed by the rollout's task index. `gym env audit`
// writes one script per environment from its probe battery (src/audit/); a test or a user can write
// one by hand. Gymkit's own (no NeMo Gym counterpart).
//
// Script file: JSONL, one line per task:
//   {"task_index": 3, "turns": [<turn>, ...], "judge": "text", "after": "repeat_last_text"}
// A turn is one model call's output:
//   {"text": "..."}                                   an assistant message
//   {"calls": [{"name": "f", "arguments": "{...}"}]}  function calls (arguments sent as written,
//                                                      so malformed JSON is possible on purpose)
//   {"echo_tool_output": true, "prefix": "..."}       a message repeating the text of the last
//                                                      function_call_output the model was given
// The policy's n-th call of a rollout gets turn n. Once the turns run out, a call gets the last text
// turn again (so a multi-step environment keeps getting the same move), or an empty message when
// there is none. Calls that carry the judge header (`x-gymkit-judge-call`) get `judge` (an empty
// message when the line has none), as do chat-completions calls (the judge kit's other path).
import { readFileSync } from "node:fs";
import { z } from "zod";
import { HttpError } from "../http/errors.js";
import type { ServerImplementation } from "../http/implementation.js";
import { asHttpApp } from "../http/server.js";
import { emptyUsage, type OutputItem, type ResponseObject, type ResponsesCreateParams } from "../protocol/index.js";
import type { ModelAdapter, ModelRequestContext } from "./adapter.js";
import { buildResponse, newId, textChatCompletion } from "./response_object.js";
import { describeRollout } from "./rollout_header.js";
import { buildModelServer } from "./server.js";

export const ScriptedModelConfig = z.strictObject({
  /** The script (JSONL, see above); relative paths resolve against the working directory. */
  script_path: z.string().min(1),
});
export type ScriptedModelConfig = z.infer<typeof ScriptedModelConfig>;

export const ScriptTurn = z.union([
  z.strictObject({ text: z.string() }),
  z.strictObject({ calls: z.array(z.strictObject({ name: z.string().min(1), arguments: z.string() })).min(1) }),
  z.strictObject({ echo_tool_output: z.literal(true), prefix: z.string().default("") }),
]);
export type ScriptTurn = z.input<typeof ScriptTurn>;

export const ScriptLine = z.strictObject({
  task_index: z.number().int().nonnegative(),
  turns: z.array(ScriptTurn),
  judge: z.string().optional(),
});
export type ScriptLine = z.input<typeof ScriptLine>;
type ParsedLine = z.output<typeof ScriptLine>;

const ID = "scripted_model";

/** Reads a script file; a bad line is an error naming the file and the line. */
export function loadScript(path: string): Map<number, ParsedLine> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`${ID}: cannot read script_path ${path}: ${(error as Error).message}`, { cause: error });
  }
  const lines = new Map<number, ParsedLine>();
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new Error(`${path}:${i + 1}: not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    const parsed = ScriptLine.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`${path}:${i + 1}: not a script line (${issue.path.join(".") || "line"}: ${issue.message}); expected {"task_index": N, "turns": [{"text": "..."} | {"calls": [...]} | {"echo_tool_output": true}]}`);
    }
    if (lines.has(parsed.data.task_index)) throw new Error(`${path}:${i + 1}: task_index ${parsed.data.task_index} is scripted twice`);
    lines.set(parsed.data.task_index, parsed.data);
  });
  return lines;
}

function textOfOutput(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map((part) => (typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : "")).join("");
  return "";
}

/** The text of the last function_call_output in the request's input (empty when there is none). */
function lastToolOutput(params: ResponsesCreateParams): string {
  const input = Array.isArray(params.input) ? params.input : [];
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i] as { type?: string; output?: unknown };
    if (item.type === "function_call_output") return textOfOutput(item.output);
  }
  return "";
}

function message(text: string): OutputItem {
  return { type: "message", id: newId("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] } as OutputItem;
}

export function scriptedAdapter(script: Map<number, ParsedLine>, scriptPath: string): ModelAdapter {
  // Policy calls made so far, per rollout.
  const calls = new Map<string, number>();

  const lineOf = (context: ModelRequestContext): ParsedLine => {
    const rollout = context.rollout;
    if (!rollout) throw new HttpError(400, `${ID}: a call without the x-gymkit-rollout header cannot be matched to a scripted task`);
    const line = script.get(rollout.task_index);
    if (!line) throw new HttpError(404, `${ID}: ${scriptPath} has no line for ${describeRollout(rollout)}`);
    return line;
  };

  const outputFor = (line: ParsedLine, params: ResponsesCreateParams, context: ModelRequestContext): OutputItem[] => {
    const key = `${context.rollout!.task_index}:${context.rollout!.rollout_index}`;
    const n = calls.get(key) ?? 0;
    calls.set(key, n + 1);
    let turn = line.turns[n];
    if (turn === undefined) {
      const lastText = [...line.turns].reverse().find((t) => "text" in t);
      turn = lastText ?? { text: "" };
    }
    if ("text" in turn) return [message(turn.text)];
    if ("echo_tool_output" in turn) return [message(`${turn.prefix}${lastToolOutput(params)}`)];
    return turn.calls.map((call) => ({ type: "function_call", id: newId("fc"), call_id: newId("call"), name: call.name, arguments: call.arguments, status: "completed" }) as OutputItem);
  };

  return {
    models: () => [ID],
    requestFields: "replay_model",

    async createResponse(params, context): Promise<ResponseObject> {
      const line = lineOf(context);
      const output = context.judgeCall !== null && context.judgeCall !== undefined ? [message(line.judge ?? "")] : outputFor(line, params, context);
      return buildResponse(params, { model: ID, output, usage: emptyUsage() });
    },

    async chatCompletions(_body, context) {
      return textChatCompletion(ID, lineOf(context).judge ?? "");
    },
  };
}

const implementation: ServerImplementation<ScriptedModelConfig> = {
  type: "responses_api_models",
  id: ID,
  configSchema: ScriptedModelConfig,
  async build({ name, config }) {
    return asHttpApp(buildModelServer({ name, id: ID, adapter: scriptedAdapter(loadScript(config.script_path), config.script_path) }));
  },
};

export default implementation;
