// Python's `int(str)` and `float(str)` on strings, as NeMo Gym's structured-output coercions call
// them (matched against CPython 3.12 semantics; NeMo Gym 07d6b0d). Each returns undefined where
// Python raises ValueError.
import { pyStrip } from "../text/pystr.js";

const DIGITS = "[0-9](?:_?[0-9])*";
const INT = new RegExp(`^[+-]?${DIGITS}$`);
const FLOAT = new RegExp(`^[+-]?(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.?)(?:[eE][+-]?${DIGITS})?$`);
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/** `int(text)` in base 10: surrounding whitespace, a sign and single underscores between digits allowed. */
export function pyInt(text: string): number | undefined {
  const s = pyStrip(text);
  if (!INT.test(s)) return undefined;
  return Number(s.replace(/_/g, ""));
}

/** `float(text)`: decimal or exponent notation, `inf`/`infinity`/`nan` in any case. */
export function pyFloat(text: string): number | undefined {
  const s = pyStrip(text);
  const special = SPECIAL.exec(s);
  if (special) {
    if (special[2]!.toLowerCase() === "nan") return NaN;
    return special[1] === "-" ? -Infinity : Infinity;
  }
  if (!FLOAT.test(s)) return undefined;
  return Number(s.replace(/_/g, ""));
}
