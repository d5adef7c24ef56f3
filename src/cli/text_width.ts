// How many terminal columns a string takes, and cutting it to fit: a live line one column too wide
// wraps, and `\r` then only rewrites its last row, leaving a trail of stale lines behind. CJK and
// emoji take two columns, combining marks none; cuts fall between graphemes, never inside one.

// Made on first use: building it loads ICU's break rules (~20 ms of CPU), which a `--quiet` run never needs.
let segmenterMade: Intl.Segmenter | undefined;
const graphemes = (text: string) => (segmenterMade ??= new Intl.Segmenter(undefined, { granularity: "grapheme" })).segment(text);

/** A lone combining mark (one after a base character is part of its grapheme already). */
const COMBINING = /^[\p{Mn}\p{Me}]$/u;

/** Zero-width spaces, joiners, marks and variation selectors. */
function isZeroWidth(cp: number): boolean {
  return (cp >= 0x200b && cp <= 0x200f) || cp === 0x2060 || (cp >= 0xfe00 && cp <= 0xfe0f);
}
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;

/** East Asian Wide and Fullwidth ranges (Unicode 15), the ones terminals draw two columns wide. */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xa960 && cp <= 0xa97f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

function graphemeWidth(grapheme: string): number {
  const first = grapheme.codePointAt(0) ?? 0;
  if (COMBINING.test(grapheme) || (grapheme.length === 1 && isZeroWidth(first))) return 0;
  if (isWide(first)) return 2;
  // An emoji, or a symbol asked to look like one (U+FE0F), is drawn two columns wide.
  if (PICTOGRAPHIC.test(grapheme) && (first >= 0x1f000 || grapheme.includes("\uFE0F"))) return 2;
  return 1;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of graphemes(text)) width += graphemeWidth(segment);
  return width;
}

/** `text` cut to at most `columns` columns, ending in `…` when cut. */
export function fitToWidth(text: string, columns: number): string {
  if (columns <= 0) return "";
  if (displayWidth(text) <= columns) return text;
  let out = "";
  let width = 0;
  for (const { segment } of graphemes(text)) {
    const w = graphemeWidth(segment);
    if (width + w > columns - 1) break;
    out += segment;
    width += w;
  }
  return `${out}…`;
}

/** Control characters (a newline in an agent name, an escape sequence) shown as `?`: one line stays one line. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
}
