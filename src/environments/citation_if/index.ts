// citation_if: rewards an answer for citing its sources in the row's citation grammar, with IDs from
// the evidence the rollout was shown, and (when the row names them) the gold sources; or, on no_cite
// rows, for citing nothing. Reproduces NeMo Gym's citation_if server at commit 07d6b0d (app.py): the
// verify response carries the row's `verifier` and the scorer's `match_details`, and every tool call
// is answered with a fixed "no more results" text so a rollout that calls tools ends and scores 0.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { TERMINAL_TOOL_RESPONSE } from "./grammars.js";
import { extractResponseShape } from "./response_shape.js";
import { scoreCitationIf } from "./scorer.js";

export default defineEnvironment({
  id: "citation_if",
  description: "Citation instruction following: reward 1 when every citation is well-formed in the row's grammar, cites evidence the rollout saw, and covers the gold sources.",
  rowFields: {
    verifier: z.record(z.string(), z.unknown()),
  },
  verifyEchoes: ["verifier"],
  toolFallback: () => TERMINAL_TOOL_RESPONSE,
  verify: (request) => {
    const { text, functionCallCount } = extractResponseShape(request.response);
    const { reward, details } = scoreCitationIf(text, functionCallCount, request.verifier);
    return { reward, match_details: details };
  },
});
