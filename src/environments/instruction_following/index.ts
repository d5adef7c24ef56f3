// instruction_following: does the response follow every verifiable instruction of its prompt
// ("use at least 17 sentences", "end with the word contest", ...)? One verdict per instruction from
// the IFEval-style checkers in src/verifiers/ifeval; reward 1/0 when all are followed (`binary`, the
// default) or the fraction followed (`fraction`). Rows in the legacy layout keep the instruction
// fields at top level; they are read as if they were inside `verifier_metadata`.
import { z } from "zod";
import { parseOr422 } from "../../http/errors.js";
import { followInstructionList } from "../../verifiers/ifeval/evaluate.js";
import { defineEnvironment } from "../../environment_kit/define.js";

/** The fields `/verify` needs, after the legacy top-level ones are merged in. */
const VerifierMetadata = z.looseObject({
  instruction_id_list: z.array(z.string()),
  kwargs: z.array(z.record(z.string(), z.unknown()).nullable()),
  prompt: z.string(),
  // A plain string, not an enum: NeMo Gym fails an unknown mode at verify time (500), not with a 422.
  grading_mode: z.string().default("binary"),
});
export type VerifierMetadata = z.infer<typeof VerifierMetadata>;

const LEGACY_FIELDS = ["instruction_id_list", "kwargs", "prompt", "grading_mode"] as const;

/** `verifier_metadata` with each legacy top-level field copied in where it is absent (explicit wins). */
export function mergedVerifierMetadata(row: Record<string, unknown>): Record<string, unknown> {
  const explicit = row.verifier_metadata;
  const merged: Record<string, unknown> = typeof explicit === "object" && explicit !== null ? { ...explicit } : {};
  for (const key of LEGACY_FIELDS) {
    if (!Object.hasOwn(merged, key) && Object.hasOwn(row, key) && row[key] !== undefined) merged[key] = row[key];
  }
  return merged;
}

/**
 * The text NeMo Gym grades: the first content part of the last output item, if that item has
 * content. A trailing tool call (or an empty output) gives "", and text of earlier items is ignored.
 */
export function gradedText(output: ReadonlyArray<Record<string, unknown>>): string {
  const last = output.at(-1);
  const content = last?.content;
  if (!Array.isArray(content) || content.length === 0) return "";
  const first = content[0] as { text?: unknown } | undefined;
  return typeof first?.text === "string" ? first.text : "";
}

export function rewardOf(follows: readonly boolean[], gradingMode: string): number {
  if (gradingMode === "binary") return follows.every(Boolean) ? 1.0 : 0.0;
  if (gradingMode === "fraction") return follows.length === 0 ? 0.0 : follows.filter(Boolean).length / follows.length;
  throw new Error(`Invalid grading_mode: ${JSON.stringify(gradingMode)}; expected "binary" or "fraction"`);
}

export default defineEnvironment({
  id: "instruction_following",
  description: "Checks a response against IFEval-style verifiable instructions (binary or fraction reward).",
  rowFields: {
    id: z.number().int(),
    verifier_metadata: z.looseObject({}).nullish(),
  },
  verify: (request) => {
    const metadata = parseOr422(VerifierMetadata, mergedVerifierMetadata(request), ["body", "verifier_metadata"]);
    const text = gradedText(request.response.output as Array<Record<string, unknown>>);
    const follows = followInstructionList(metadata.instruction_id_list, metadata.kwargs, text);
    return {
      reward: rewardOf(follows, metadata.grading_mode),
      follow_all_instructions: follows.every(Boolean),
      follow_instruction_list: follows,
      verifier_metadata: metadata,
    };
  },
});
