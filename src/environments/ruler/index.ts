// ruler: NVIDIA's RULER long-context suite, as NeMo Gym's ruler server at NVIDIA-NeMo/Gym 07d6b0d
// scores it (after NeMo-Skills' ruler evaluator): case-insensitive substring match of the row's
// reference `outputs` in the stripped response. For subsets qa_1 and qa_2 one reference suffices
// (reward 1 or 0); for every other subset the reward is the fraction of references present. The
// reward is also reported under the row's subset name; the other subsets' fields are null.
// Default metrics. `/verify` is stateless.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { outputText } from "../../protocol/index.js";
import { pyStrip } from "../../verifiers/text/pystr.js";

/** The per-subset fields of NeMo Gym's verify response, in its order. */
export const RULER_SUBSETS = [
  "cwe",
  "fwe",
  "niah_multikey_1",
  "niah_multikey_2",
  "niah_multikey_3",
  "niah_multiquery",
  "niah_multivalue",
  "niah_single_1",
  "niah_single_2",
  "niah_single_3",
  "qa_1",
  "qa_2",
  "vt",
] as const;

/** Python's str.lower() (full Unicode case mapping, final sigma included) matches JavaScript's toLowerCase. */
const lower = (s: string) => s.toLowerCase();

/** Mean over references of "reference occurs in the prediction" (all must appear for 1). */
export function stringMatchAll(prediction: string, refs: readonly string[]): number {
  const p = lower(prediction);
  // Python divides by len(refs): an empty list is a ZeroDivisionError there (a 500), so here too.
  if (refs.length === 0) throw new Error("ruler: `outputs` is empty (NeMo Gym divides by its length)");
  return refs.reduce((sum, r) => sum + (p.includes(lower(r)) ? 1.0 : 0.0), 0) / refs.length;
}

/** 1 when any reference occurs in the prediction. */
export function stringMatchPart(prediction: string, refs: readonly string[]): number {
  const p = lower(prediction);
  if (refs.length === 0) throw new Error("ruler: `outputs` is empty (NeMo Gym takes max() of nothing)");
  return Math.max(...refs.map((r) => (p.includes(lower(r)) ? 1.0 : 0.0)));
}

export default defineEnvironment({
  id: "ruler",
  description: "RULER long-context tasks: case-insensitive substring match of the reference outputs (all, or any for QA).",
  rowFields: {
    outputs: z.array(z.string()),
    length: z.number().int(),
    subset: z.string(),
  },
  verifyEchoes: ["outputs", "length", "subset"],
  reverifyMode: "stateless",
  verify: (request) => {
    const prediction = pyStrip(outputText(request.response));
    const match = request.subset === "qa_1" || request.subset === "qa_2" ? stringMatchPart : stringMatchAll;
    const reward = match(prediction, request.outputs);
    const perSubset = Object.fromEntries(RULER_SUBSETS.map((name) => [name, name === request.subset ? reward : null]));
    return { reward, ...perSubset };
  },
});
