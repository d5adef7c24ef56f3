// format_verification: whether the reply follows a formatting instruction, checked by rules the row
// carries in `verifier`: line patterns with a minimum count (`regex`, `inline_prose`) or citation
// markers that must all appear with no stray ones (`string_match`); see checks.ts. The reply carries
// `verifier` back and `match_details` (what was counted, missing or stray).
// Behaviour matched to NeMo Gym's resources_servers/format_verification/app.py at commit 07d6b0d.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { outputText } from "../../protocol/index.js";
import { verifyRegex, verifyStringMatch } from "./checks.js";

export default defineEnvironment({
  id: "format_verification",
  description: "Formatting and citation-marker adherence, verified by the row's regex line counts or expected markers.",
  rowFields: {
    verifier: z.record(z.string(), z.unknown()),
  },
  verifyEchoes: ["verifier"],
  reverifyMode: "stateless",
  verify: (request) => {
    const text = outputText(request.response);
    const type = request.verifier.type ?? "";
    let result;
    if (type === "regex" || type === "inline_prose") result = verifyRegex(text, request.verifier);
    else if (type === "string_match") result = verifyStringMatch(text, request.verifier);
    // NeMo Gym raises here, so the request fails (500) rather than scoring 0.
    else throw new Error(`Verifier type must be 'regex' or 'string_match', got ${JSON.stringify(type)}`);
    return { reward: result.reward, match_details: result.details };
  },
});
