// Python's `codecs.decode(text, "unicode_escape")` on a str, as NeMo Gym's structeval environment
// pre-processes answers (CPython 3.12; NeMo Gym 07d6b0d): the text is taken as its UTF-8 bytes,
// each byte not part of an escape becomes the Latin-1 character of that byte (so "é" becomes "Ã©"),
// and backslash escapes are decoded. Unknown escapes stay as written; a malformed escape throws.
// `\N{name}` needs the Unicode name table, which is not reproduced: it throws (see the fixtures).

export class UnicodeEscapeError extends Error {
  override name = "UnicodeDecodeError";
}

const SIMPLE: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\n": "" };

export function decodeUnicodeEscape(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  let out = "";
  let i = 0;
  const hex = (n: number): number => {
    const digits = bytes.subarray(i, i + n).toString("latin1");
    if (digits.length < n || !/^[0-9a-fA-F]+$/.test(digits)) throw new UnicodeEscapeError("truncated escape");
    i += n;
    return parseInt(digits, 16);
  };
  while (i < bytes.length) {
    const b = bytes[i++]!;
    if (b !== 0x5c) {
      out += String.fromCharCode(b);
      continue;
    }
    if (i >= bytes.length) throw new UnicodeEscapeError("\\ at end of string");
    const c = String.fromCharCode(bytes[i++]!);
    if (c in SIMPLE) out += SIMPLE[c];
    else if (c >= "0" && c <= "7") {
      let digits = c;
      while (digits.length < 3 && i < bytes.length && bytes[i]! >= 0x30 && bytes[i]! <= 0x37) digits += String.fromCharCode(bytes[i++]!);
      out += String.fromCodePoint(parseInt(digits, 8));
    } else if (c === "x") out += String.fromCharCode(hex(2));
    else if (c === "u") out += String.fromCharCode(hex(4));
    else if (c === "U") {
      const code = hex(8);
      if (code > 0x10ffff) throw new UnicodeEscapeError("illegal Unicode character");
      out += String.fromCodePoint(code);
    } else if (c === "N") throw new UnicodeEscapeError("\\N{...} escapes are not reproduced");
    else out += `\\${c}`;
  }
  return out;
}
