// NeMo Gym's mcqa request and config (resources_servers/mcqa/app.py at commit 07d6b0d), shared by the
// environments that NeMo Gym derives from mcqa (gpqa_diamond, bunsenbench_chemistry_mcq).
import { z } from "zod";
import { GRADING_MODES, ROW_GRADING_MODES, type Question } from "./extract.js";

export const McqaConfig = z.strictObject({
  /** When set, overrides every row's `grading_mode` (and may also be `lenient_answer_colon_md`). */
  grading_mode: z.enum(GRADING_MODES).nullable().default(null),
});
export type McqaConfig = z.infer<typeof McqaConfig>;

/** NeMo Gym's MCQARunRequest fields. */
export const MCQA_ROW_FIELDS = {
  options: z.array(z.record(z.string(), z.string().nullable())).nullable().default(null),
  expected_answer: z.string().nullable().default(null),
  grading_mode: z.enum(ROW_GRADING_MODES).default("strict_single_letter_boxed"),
  uuid: z.union([z.string(), z.number()]).nullable().default(null),
  metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  template_metadata: z.record(z.string(), z.unknown()).nullable().default(null),
};

/** Option letters (upper-cased) that are one alphabetic character and have a text. */
export function questionOf(options: ReadonlyArray<Record<string, string | null>> | null | undefined): Question {
  const map = new Map<string, string>();
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) {
      if (value !== null && Array.from(key).length === 1 && /^\p{L}$/u.test(key)) map.set(key.toUpperCase(), value);
    }
  }
  return { options: map };
}
