// The value side of a Hydra command-line override (`key=<value>`), parsed the way Hydra's grammar
// does so NeMo Gym command lines mean the same here: `[a.yaml,b.yaml]` is a list, `{a:32, _default:1}`
// is a mapping (Hydra needs no space after the colon, which YAML flow syntax would), quoted strings
// stay strings, and an unquoted scalar becomes null, a boolean, a number or a string.
// `${...}` interpolations are kept whole (their braces and commas do not end a value); they are
// resolved later, against the merged config.

export class OverrideValueError extends Error {}

export function parseOverrideValue(text: string): unknown {
  const parser = new ValueParser(text);
  const value = parser.topLevel();
  return value;
}

/** Unquoted scalar → typed value, with Hydra's rules (case-insensitive null/true/false, ints, floats). */
export function typedScalar(raw: string): unknown {
  const text = raw.trim();
  const lower = text.toLowerCase();
  if (lower === "null") return null;
  if (lower === "true") return true;
  if (lower === "false") return false;
  if (/^[+-]?\d[\d_]*$/.test(text)) return Number(text.replaceAll("_", ""));
  if (/^[+-]?(\d[\d_]*\.[\d_]*|\.\d[\d_]*|\d[\d_]*)([eE][+-]?\d+)?$/.test(text)) return Number(text.replaceAll("_", ""));
  if (/^[+-]?inf$/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
  if (lower === "nan") return NaN;
  return text;
}

class ValueParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  topLevel(): unknown {
    this.skipSpace();
    // `key=` sets an empty string, as in Hydra.
    if (this.pos >= this.text.length) return "";
    const first = this.text[this.pos];
    if (first === "[" || first === "{" || first === "'" || first === '"') {
      const value = this.value();
      this.skipSpace();
      if (this.pos < this.text.length) this.fail(`unexpected \`${this.text.slice(this.pos)}\` after the value`);
      return value;
    }
    // A bare top-level scalar runs to the end: `http://host:8000/v1`, `a,b` and `x y` are single strings.
    return typedScalar(this.text);
  }

  private value(): unknown {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === "[") return this.list();
    if (c === "{") return this.mapping();
    if (c === "'" || c === '"') return this.quoted();
    return typedScalar(this.bare(",]}"));
  }

  private list(): unknown[] {
    this.pos++; // [
    const items: unknown[] = [];
    this.skipSpace();
    if (this.eat("]")) return items;
    while (true) {
      items.push(this.value());
      this.skipSpace();
      if (this.eat("]")) return items;
      if (!this.eat(",")) this.fail("expected `,` or `]` in a list");
    }
  }

  private mapping(): Record<string, unknown> {
    this.pos++; // {
    const map: Record<string, unknown> = {};
    this.skipSpace();
    if (this.eat("}")) return map;
    while (true) {
      this.skipSpace();
      const c = this.text[this.pos];
      const key = c === "'" || c === '"' ? this.quoted() : this.bare(":,}").trim();
      if (key === "") this.fail("expected a key in a mapping");
      this.skipSpace();
      if (!this.eat(":")) this.fail(`expected \`:\` after the key \`${key}\``);
      map[key] = this.value();
      this.skipSpace();
      if (this.eat("}")) return map;
      if (!this.eat(",")) this.fail("expected `,` or `}` in a mapping");
    }
  }

  private quoted(): string {
    const quote = this.text[this.pos];
    this.pos++;
    let out = "";
    while (this.pos < this.text.length) {
      const c = this.text[this.pos++];
      if (c === "\\" && this.pos < this.text.length) out += this.text[this.pos++];
      else if (c === quote) return out;
      else out += c;
    }
    return this.fail(`unterminated ${quote} string`);
  }

  /** Characters up to one of `stops` at nesting depth 0; `${...}` counts as one unit. */
  private bare(stops: string): string {
    const start = this.pos;
    let depth = 0;
    while (this.pos < this.text.length) {
      const c = this.text[this.pos] ?? "";
      if (c === "$" && this.text[this.pos + 1] === "{") {
        depth++;
        this.pos += 2;
        continue;
      }
      if (depth > 0 && c === "}") depth--;
      else if (depth === 0 && stops.includes(c)) break;
      this.pos++;
    }
    return this.text.slice(start, this.pos);
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] ?? "")) this.pos++;
  }

  private eat(c: string): boolean {
    if (this.text[this.pos] !== c) return false;
    this.pos++;
    return true;
  }

  private fail(reason: string): never {
    throw new OverrideValueError(`${reason} (at character ${this.pos + 1})`);
  }
}
