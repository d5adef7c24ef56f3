// string_match: free-form answers graded by string comparison. The row names where the answer is
// (`extraction_mode`: the last \boxed{}, a "Final answer:" line, the last line, or the whole reply),
// the expected answer, and whether the comparison is case-sensitive (then: exact after stripping).
// The default, case-insensitive grader forgives formatting (quotes, LaTeX wrappers, thousands
// separators, list separators, state names) and gives 0.98 for a number within about 1%.
// Behaviour matched to NeMo Gym's resources_servers/string_match/app.py at commit 07d6b0d.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { assistantText, extractAnswer, EXTRACTION_MODES } from "./extract.js";
import { answersMatch } from "./grade.js";

export default defineEnvironment({
  id: "string_match",
  description: "General-purpose string matching verifier for free-form text answers.",
  rowFields: {
    expected_answer: z.string(),
    extraction_mode: z.enum(EXTRACTION_MODES).default("final_answer"),
    case_sensitive: z.boolean().default(false),
    metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  },
  reverifyMode: "stateless",
  verify: (request) => {
    const text = assistantText(request.response);
    const extracted = extractAnswer(text, request.extraction_mode);
    const reward = extracted !== undefined && request.expected_answer !== "" ? answersMatch(extracted, request.expected_answer, request.case_sensitive) : 0.0;
    return { reward, expected_answer: request.expected_answer, extracted_answer: extracted ?? null };
  },
});
