// Python's `html.unescape` (CPython's html module, the HTML5 rules): numeric references (decimal or
// hex, `;` optional) with the standard's replacements for invalid code points, and named references,
// a name without `;` matching its longest known prefix. NeMo Gym's bunsenbench_chemistry_mcq (commit
// 07d6b0d) normalises option texts with it.
import { HTML5_ENTITIES, INVALID_CHARREFS, INVALID_CODEPOINTS } from "./html_entities.js";

const CHARREF = /&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)/gu;

function replaceCharref(s: string): string {
  if (s[0] === "#") {
    const hex = s[1] === "x" || s[1] === "X";
    const digits = (hex ? s.slice(2) : s.slice(1)).replace(/;+$/, "");
    const num = parseInt(digits, hex ? 16 : 10);
    const fixed = INVALID_CHARREFS.get(num);
    if (fixed !== undefined) return fixed;
    if ((num >= 0xd800 && num <= 0xdfff) || num > 0x10ffff) return "\ufffd";
    if (INVALID_CODEPOINTS.has(num)) return "";
    return String.fromCodePoint(num);
  }
  const named = HTML5_ENTITIES.get(s);
  if (named !== undefined) return named;
  const chars = Array.from(s);
  for (let x = chars.length - 1; x > 1; x--) {
    const prefix = chars.slice(0, x).join("");
    const value = HTML5_ENTITIES.get(prefix);
    if (value !== undefined) return value + chars.slice(x).join("");
  }
  return "&" + s;
}

export function htmlUnescape(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(CHARREF, (_, ref: string) => replaceCharref(ref));
}
