// Python's `json.loads(text)` (CPython 3.12; NeMo Gym 07d6b0d reads JSON answers with it): JSON, plus
// the literals NaN, Infinity and -Infinity Python also accepts. Proven against fixtures from Python.

const SENTINEL = "\u0000pyjson:";
const SPECIALS: Record<string, number> = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

export function pyJsonLoads(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (!/NaN|Infinity/.test(text)) throw error;
    // Outside strings, turn the three literals into marked strings, parse, then back into numbers.
    let out = "";
    let i = 0;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') {
        let j = i + 1;
        while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
        out += text.slice(i, j + 1);
        i = j + 1;
        continue;
      }
      const m = /^(?:-Infinity|Infinity|NaN)/.exec(text.slice(i, i + 9));
      if (m) {
        out += JSON.stringify(SENTINEL + m[0]);
        i += m[0].length;
        continue;
      }
      out += c;
      i++;
    }
    return JSON.parse(out, (_key, value: unknown) => (typeof value === "string" && value.startsWith(SENTINEL) ? SPECIALS[value.slice(SENTINEL.length)] : value)) as unknown;
  }
}
