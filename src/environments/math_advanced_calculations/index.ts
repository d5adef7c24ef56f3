// math_advanced_calculations: an instruction-following math environment with counter-intuitive
// calculators. The row asks for values of expressions "using only the given tools"; the tools compute
// an alternate arithmetic (calculators.ts), so only a model that calls them, and trusts their answers,
// reaches the row's ground truth. Verification reads only the rollout's tool outputs (verify.ts).
// Behaviour matched to NeMo Gym's resources_servers/math_advanced_calculations at commit 07d6b0d.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { HttpError } from "../../http/errors.js";
import { pyFloatFromString } from "../../verifiers/text/pyfloat.js";
import { calculate, CalculatorError, CALCULATORS, type ArgumentName } from "./calculators.js";
import { rewardOf, strictRewardOf } from "./verify.js";

const Config = z.strictObject({
  /** Gymkit's: count only tool solutions computed from the question's numbers (verify.ts, strictRewardOf); false = NeMo Gym's reward. */
  strict: z.boolean().default(false),
});
type Config = z.infer<typeof Config>;

/** The last user message's text (the question). */
function questionOf(input: unknown): string {
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  const user = [...input].reverse().find((m: { role?: string }) => m?.role === "user") as { content?: unknown } | undefined;
  if (typeof user?.content === "string") return user.content;
  return Array.isArray(user?.content) ? user.content.map((p: { text?: unknown }) => (typeof p?.text === "string" ? p.text : "")).join("") : "";
}

/** A float argument as pydantic reads one (numbers, booleans, numeric strings); null when absent. */
const FloatArg = z
  .union([z.number(), z.boolean(), z.string().refine((s) => pyFloatFromString(s) !== undefined, "Input should be a valid number")])
  .nullable()
  .optional()
  .transform((v) => (v === undefined || v === null ? null : typeof v === "number" ? v : typeof v === "boolean" ? (v ? 1 : 0) : pyFloatFromString(v)!));

/** Every tool takes NeMo Gym's one request model: four optional floats; the tool then wants exactly its own. */
const Args = z.object({ a: FloatArg, b: FloatArg, radians: FloatArg, base: FloatArg });

function tool(name: string) {
  return {
    description: CALCULATORS[name]!.description,
    args: Args,
    handler: (args: z.output<typeof Args>) => {
      try {
        return { solution: calculate(name, args as Record<ArgumentName, number | null>) };
      } catch (error) {
        if (error instanceof CalculatorError) throw new HttpError(500, error.message, { detail: error.message });
        throw error;
      }
    },
  };
}

export default defineEnvironment({
  id: "math_advanced_calculations",
  description: "An instruction-following math environment with counter-intuitive calculators.",
  configSchema: Config,
  tools: {
    multiply: tool("multiply"),
    divide: tool("divide"),
    add: tool("add"),
    return_constant: tool("return_constant"),
    sin: tool("sin"),
    cos: tool("cos"),
    subtract: tool("subtract"),
    power: tool("power"),
    log: tool("log"),
    pi: tool("pi"),
    negate: tool("negate"),
  },
  rowFields: {
    ground_truth: z.union([z.array(z.number()), z.string()]),
    id: z.number().int(),
    depth: z.number().int(),
    breadth: z.number().int(),
  },
  verifyEchoes: ["ground_truth", "id", "depth", "breadth"],
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    try {
      const output = request.response.output as Array<Record<string, unknown>>;
      if ((ctx.config as Config).strict) return { reward: strictRewardOf(request.ground_truth, output, questionOf(request.responses_create_params.input)) };
      return { reward: rewardOf(request.ground_truth, output) };
    } catch (error) {
      // NeMo Gym's verify raises here (ground truth not a JSON string, or not iterable): the request fails.
      throw new HttpError(500, (error as Error).message, { detail: "Internal Server Error" });
    }
  },
});
