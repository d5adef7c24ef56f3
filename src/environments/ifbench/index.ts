// ifbench: AllenAI's IFBench instruction-following benchmark (58 instruction types, allenai/IFBench
// c6767a19), scored as NeMo Gym's ifbench server does at commit 07d6b0d: the reward is the fraction
// of the row's instructions the response follows strictly (or 1/0 under grading_mode "binary"), with
// the loose scores beside it. The text scored is the first content block of the response's last item.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { checkInstructions, rewardOf } from "./evaluate.js";

const Config = z.strictObject({
  /** NeMo Gym's bound on concurrent checks (its thread pool); accepted for config compatibility. */
  num_processes: z.number().int().positive().default(32),
});

/** `response.output[-1].content[0].text`, or "" when the last item has no content. */
function finalText(response: unknown): string {
  const output = (response as { output?: unknown[] } | undefined)?.output;
  if (!Array.isArray(output) || output.length === 0) return "";
  const content = (output[output.length - 1] as { content?: unknown } | null)?.content;
  if (!Array.isArray(content) || content.length === 0) return "";
  const text = (content[0] as { text?: unknown } | null)?.text;
  if (typeof text !== "string") throw new Error("the last output item's first content block has no text");
  return text;
}

export default defineEnvironment({
  id: "ifbench",
  description: "IFBench instruction following: reward is the fraction of the row's instructions the response follows (strict), loose scores beside it.",
  configSchema: Config,
  rowFields: {
    id: z.number().int(),
    instruction_id_list: z.array(z.string()),
    prompt: z.string(),
    kwargs: z.array(z.unknown()),
    grading_mode: z.enum(["binary", "fraction"]).default("fraction"),
  },
  verify: (request) => {
    const { strict, loose } = checkInstructions(request.instruction_id_list, request.kwargs, finalText(request.response));
    return {
      reward: rewardOf(strict, request.grading_mode),
      follow_all_instructions: strict.every(Boolean),
      follow_instruction_list: strict,
      follow_all_instructions_loose: loose.every(Boolean),
      follow_instruction_list_loose: loose,
      reward_loose: rewardOf(loose, request.grading_mode),
      kwargs: request.kwargs,
      instruction_id_list: request.instruction_id_list,
      prompt: request.prompt,
      grading_mode: request.grading_mode,
    };
  },
});
