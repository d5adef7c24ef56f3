// example_tool_call_multireward: three independent 0/1 rewards for one expected tool call —
// did the model call the right tool with the right arguments (correctness), were the first call's
// arguments a valid object with the tool's required keys (schema_valid), and was the turn exactly
// one call and no message (format). reward = their sum (0..3).
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";

type Json = Record<string, unknown>;

export interface PredictedCall {
  name: unknown;
  arguments: Json;
  /** False when the arguments were not an object (or a string that parses to one). */
  valid: boolean;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An object is used as is; a string counts only if it parses to an object; anything else is `{}`. */
export function parseArguments(raw: unknown): { value: Json; valid: boolean } {
  if (isObject(raw)) return { value: raw, valid: true };
  if (typeof raw === "string") {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isObject(parsed)) return { value: parsed, valid: true };
    } catch {
      // Falls through to "invalid".
    }
  }
  return { value: {}, valid: false };
}

export function predictedCalls(output: ReadonlyArray<Json>): PredictedCall[] {
  return output
    .filter((item) => item.type === "function_call")
    .map((item) => {
      const { value, valid } = parseArguments(item.arguments);
      return { name: item.name, arguments: value, valid };
    });
}

function requiredKeys(tools: readonly unknown[] | null | undefined, name: unknown): string[] {
  const tool = (tools ?? []).find((t): t is Json => isObject(t) && t.type === "function" && t.name === name);
  const required = isObject(tool?.parameters) ? tool.parameters.required : undefined;
  return Array.isArray(required) ? required.filter((k): k is string => typeof k === "string") : [];
}

export default defineEnvironment({
  id: "example_tool_call_multireward",
  description: "Rewards one expected get_weather call on correctness, schema validity and format (0..3).",
  rowFields: {
    // `{name, arguments}`; any object is accepted (NeMo Gym declares a plain dict), `{}` scores 0.
    expected_call: z.record(z.string(), z.unknown()).default({}),
  },
  tools: {
    get_weather: {
      description: "Get the current weather for a city.",
      args: z.object({ city: z.string().describe("The city to get the weather for.") }),
      handler: ({ city }) => ({ city, weather_description: `The weather in ${city} is sunny.` }),
    },
  },
  verify: (request) => {
    const output = request.response.output as Json[];
    const calls = predictedCalls(output);
    // Any message counts against format, whatever its role; reasoning and tool outputs do not.
    const format = calls.length === 1 && !output.some((item) => item.type === "message") ? 1.0 : 0.0;
    const first = calls[0];
    const schemaValid =
      first !== undefined &&
      first.valid &&
      requiredKeys(request.responses_create_params.tools, first.name).every((key) => Object.hasOwn(first.arguments, key))
        ? 1.0
        : 0.0;
    const expected = request.expected_call;
    const expectedArgs = isObject(expected.arguments) ? expected.arguments : {};
    const correctness =
      expected.name !== undefined &&
      calls.some(
        (call) =>
          call.name === expected.name &&
          Object.entries(expectedArgs).every(
            ([key, value]) => Object.hasOwn(call.arguments, key) && isDeepStrictEqual(call.arguments[key], value),
          ),
      )
        ? 1.0
        : 0.0;
    return {
      reward: correctness + schemaValid + format,
      reward_components: { correctness, schema_valid: schemaValid, format },
      correctness,
      schema_valid: schemaValid,
      format,
      predicted_calls: calls.map(({ name, arguments: args }) => ({ name, arguments: args })),
    };
  },
});
