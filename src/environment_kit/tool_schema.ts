// Tool JSON schemas for the model, derived from the zod argument schemas so that what the model is
// told and what the route accepts can never drift apart.
import { z } from "zod";

/** A Responses-API function tool, the shape rows carry in `responses_create_params.tools`. */
export interface FunctionToolSpec {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

export function functionToolOf(name: string, description: string, args: z.ZodObject): FunctionToolSpec {
  // The input side is what the model writes (a key with a default is optional for the caller).
  const schema = z.toJSONSchema(args, {
    io: "input",
    unrepresentable: "any",
    override: ({ jsonSchema }) => {
      // z.int() bounds itself to the safe-integer range: noise for a model, not a constraint.
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      // Unknown keys are dropped by the route, so telling the model "no others" is the honest contract.
      if (jsonSchema.type === "object" && jsonSchema.additionalProperties === undefined) jsonSchema.additionalProperties = false;
    },
  });
  const { $schema: _ignored, ...parameters } = schema as Record<string, unknown>;
  const properties = Object.keys((parameters.properties as Record<string, unknown> | undefined) ?? {});
  const required = (parameters.required as string[] | undefined) ?? [];
  // OpenAI's strict mode demands every property be required and no others allowed; claim it only then.
  const strict = parameters.additionalProperties === false && properties.every((p) => required.includes(p));
  if (!parameters.required) parameters.required = [];
  return { type: "function", name, description, parameters, strict };
}
