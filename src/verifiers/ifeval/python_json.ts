// Whether Python's `json.loads` accepts a text. It is `JSON.parse` plus the three non-standard
// constants Python reads by default (`NaN`, `Infinity`, `-Infinity`); both reject everything else
// the same way (single quotes, trailing commas, comments, a BOM, trailing data).

/** Replaces the bare constants outside strings with ` 0 `, leaving string contents untouched. */
function withoutPythonConstants(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      // Copy the string literal verbatim, escapes included.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const constant = ["-Infinity", "Infinity", "NaN"].find((c) => text.startsWith(c, i));
    if (constant) {
      // Spaced, so "1NaN" stays invalid as in Python.
      out += " 0 ";
      i += constant.length;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

export function pyJsonLoads(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    // Maybe only Python's extra constants made it invalid.
  }
  if (!/NaN|Infinity/.test(text)) return false;
  try {
    JSON.parse(withoutPythonConstants(text));
    return true;
  } catch {
    return false;
  }
}
