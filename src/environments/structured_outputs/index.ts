// structured_outputs: answers that must follow a schema (NeMo Gym 07d6b0d
// `resources_servers/structured_outputs`). The row's `schema_str` (a JSON Schema) is made strict —
// every declared property required, no others allowed — and the answer must validate against it:
// the answer's text parsed as the row's `schema_type` (JSON, YAML, XML, TOML or CSV, with the
// parsers NeMo Gym uses, XML and CSV strings coerced toward the schema's types), or, when
// `response_mode` is "tool_call", the arguments of the one function call the model made. Reward 1
// or 0; `error_type` says why a 0. Needs nothing but the request: "stateless" re-verification.
import { z } from "zod";
import { keyMetrics } from "../../metrics/aggregate.js";
import { outputText } from "../../protocol/index.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { scoreObject, scoreText, SCHEMA_TYPES, type Score } from "./evaluate.js";
import { structuredOutputsMetrics } from "./metrics.js";
import { toolCallPayload } from "./tool_call.js";

const Config = z.strictObject({
  /** Coerce XML text values toward the schema's integer/number/boolean types before validating. */
  xml_coerce_types: z.boolean().default(true),
});
type Config = z.infer<typeof Config>;

const optionalString = z.string().nullable().default(null);
const optionalInt = z.number().int().nullable().default(null);
const optionalBool = z.boolean().nullable().default(null);

/** The row fields NeMo Gym's verify request declares after `schema_str`/`schema_type`, in its order. */
const DESCRIPTIVE = {
  problem_type: optionalString,
  schema_repr: optionalString,
  source_format: optionalString,
  num_turns: optionalInt,
  source_record_id: optionalString,
  response_mode: z.string().nullable().default("text"),
  tool_name: optionalString,
  tool_schema_mode: optionalString,
  tool_payload_key: optionalString,
  tool_choice: optionalString,
  parallel_tool_calls: optionalBool,
  source_schema_type: optionalString,
  num_tools: optionalInt,
  num_distractors: optionalInt,
  has_distractors: optionalBool,
  instruction_layout: optionalString,
  instruction_detail_level: optionalString,
  system_instruction_style: optionalString,
  tool_name_style: optionalString,
  distractor_style: optionalString,
  tool_union_mode: optionalString,
};

export default defineEnvironment({
  id: "structured_outputs",
  description: "Answers that must validate against the row's JSON Schema (made strict), written as JSON, YAML, XML, TOML, CSV or a tool call.",
  configSchema: Config,
  rowFields: {
    schema_str: z.string(),
    schema_type: z.enum(SCHEMA_TYPES).default("json"),
    ...DESCRIPTIVE,
  },
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    let score: Score;
    if (request.response_mode === "tool_call") {
      const payload = toolCallPayload(request.response as unknown as Record<string, unknown>, request.tool_name, request.tool_payload_key);
      score = payload.errorType
        ? { reward: 0.0, error_type: payload.errorType, error_message: payload.errorMessage ?? null }
        : scoreObject(request.schema_str, payload.value);
    } else {
      score = scoreText(request.schema_type, request.schema_str, outputText(request.response), (ctx.config as Config).xml_coerce_types);
    }
    const descriptive = Object.fromEntries(Object.keys(DESCRIPTIVE).map((key) => [key, (request as Record<string, unknown>)[key]]));
    return {
      reward: score.reward,
      schema_str: request.schema_str,
      schema_type: request.schema_type,
      error_type: score.error_type,
      error_message: score.error_message,
      ...descriptive,
    };
  },
  aggregateMetrics: (rows, ctx) => {
    const base = ctx.defaults(rows);
    const agent_metrics = { ...base.agent_metrics, ...structuredOutputsMetrics(rows) };
    return { ...base, agent_metrics, key_metrics: keyMetrics(agent_metrics) };
  },
});
