// The library check of NeMo Gym's math_with_judge: math-verify's `math_metric` with gold = LaTeX
// extraction of `\boxed{expected}` and prediction = Expr + LaTeX extraction, float rounding 6.
// This runs inside a pool worker (./pool.ts); call it directly only for trusted, small inputs.
import { Equivalence, DEFAULT_OPTIONS, type EquivalenceOptions } from "./equivalence.js";
import { extractGold, extractPrediction, type Extracted } from "./extract.js";
import { print } from "./print.js";

export interface LibraryVerdict {
  /** 1 when some extracted prediction is equivalent to some extracted gold. */
  reward: number;
  /** str() of the first prediction that verifies, else of the first prediction, else null. */
  extracted: string | null;
}

/** NeMo Gym strips one outer `\( \)`, then one outer `$ $`, before boxing the gold. */
export function stripGoldDelimiters(expected: string): string {
  let gold = expected.trim();
  const paren = /^\\\(([\s\S]*)\\\)$/.exec(gold);
  if (paren) gold = paren[1]!.trim();
  const dollar = /^\$([\s\S]*)\$$/.exec(gold);
  if (dollar) gold = dollar[1]!.trim();
  return gold;
}

/** math-verify's `verify`: any (gold, prediction) pair that matches; strings only match strings. */
export function pairMatches(gold: Extracted, pred: Extracted, equivalence: Equivalence): boolean {
  if (gold.expr && pred.expr) return equivalence.equal(gold.expr, pred.expr);
  if (!gold.expr && !pred.expr) return gold.text.trim() === pred.text.trim();
  return false;
}

function text(item: Extracted): string {
  return item.expr ? print(item.expr) : item.text;
}

export function verifyAnswer(expected: string, generated: string, options: EquivalenceOptions = DEFAULT_OPTIONS): LibraryVerdict {
  const golds = extractGold(stripGoldDelimiters(expected));
  // No gold answer: math-verify raises, NeMo Gym scores (0.0, None).
  if (golds.length === 0) return { reward: 0, extracted: null };
  const preds = extractPrediction(generated);
  const equivalence = new Equivalence(options);
  for (const pred of preds) {
    if (golds.some((gold) => pairMatches(gold, pred, equivalence))) return { reward: 1, extracted: text(pred) };
  }
  return { reward: 0, extracted: preds.length ? text(preds[0]!) : null };
}
