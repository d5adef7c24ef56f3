// single_step_tool_use_with_argument_comparison: one step of an expert trajectory. The row gives the
// conversation so far and the action the expert took next (`expected_action`: a chat message, a tool
// call, or a batch of parallel calls); the model makes one response, and the reward says how well its
// action matches (compare.ts), with the category of the verdict. Reproduces NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/single_step_tool_use_with_argument_comparison (verify, reply fields, default
// metrics; reverify mode left "unknown" as there). NeMo Gym drives it with tool_simulation_agent (one
// model call, no tool run), which Gymkit ships as src/agents/tool_simulation_agent.ts.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { dumpAction, ExpectedAction, extractAction } from "./actions.js";
import { ActionComparator, Category, REWARD_MODES } from "./compare.js";

const ComparatorConfig = z.object({
  word_count_similarity_threshold: z.number(),
  floating_point_comparison_threshold: z.number().default(1e-6),
  /** Whether the number of calls counts at all (off: surplus calls are free). */
  parallel_tool_call_rewarding: z.boolean().default(false),
  allow_subset: z.boolean().default(false),
  allow_superset: z.boolean().default(false),
  parallel_tool_call_reward_mode: z.enum(REWARD_MODES).default("binary_strict"),
});

const Config = z.strictObject({
  tool_call_comparator_config: ComparatorConfig,
});
type Config = z.infer<typeof Config>;

export default defineEnvironment({
  id: "single_step_tool_use_with_argument_comparison",
  description: "One step of an expert tool-use trajectory: reward for matching the expert's next action (message, tool call, or parallel calls) by tool name and argument comparison.",
  configSchema: Config,
  rowFields: {
    expected_action: ExpectedAction,
  },
  verify: (request, ctx) => {
    const expected = dumpAction(request.expected_action);
    const actual = extractAction(request.response.output as Array<Record<string, unknown>>);
    if (actual === null) return { reward: 0.0, expected_action: expected, category: Category.NO_ACTION_FOUND };
    const comparator = new ActionComparator((ctx.config as Config).tool_call_comparator_config);
    const { reward, category } = comparator.compareAction(expected, actual);
    return { reward, expected_action: expected, category };
  },
});
