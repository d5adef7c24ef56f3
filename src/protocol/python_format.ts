// Python's `str.format` / `str.format_map` for the templates NeMo Gym's judges and prompt configs use:
// `{name}` fields (optionally `!s` / `!r`), literal braces doubled. Values are JSON-shaped and shown
// as Python's str() shows them (None, True, lists and dicts as repr). Format specs, indexing and
// attribute access are refused with a clear message rather than half-supported.

export class FormatTemplateError extends Error {}

export type FormatPiece = { text: string } | { field: string; conversion?: "s" | "r" };

/** Splits a template into text and `{field}` pieces; throws FormatTemplateError on malformed braces. */
export function parseFormatTemplate(template: string): FormatPiece[] {
  const pieces: FormatPiece[] = [];
  let text = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === "{" && template[i + 1] === "{") {
      text += "{";
      i++;
    } else if (c === "}" && template[i + 1] === "}") {
      text += "}";
      i++;
    } else if (c === "{") {
      const end = template.indexOf("}", i);
      if (end === -1) throw new FormatTemplateError(`a \`{\` at character ${i + 1} is never closed (write \`{{\` for a literal brace)`);
      const body = template.slice(i + 1, end);
      const match = /^([A-Za-z_]\w*)(?:!([sr]))?$/.exec(body);
      if (!match) throw new FormatTemplateError(`\`{${body}}\` is not supported; placeholders are plain names like \`{question}\` (write \`{{\` and \`}}\` for literal braces)`);
      if (text) pieces.push({ text });
      text = "";
      pieces.push(match[2] ? { field: match[1]!, conversion: match[2] as "s" | "r" } : { field: match[1]! });
      i = end;
    } else if (c === "}") {
      throw new FormatTemplateError(`a single \`}\` at character ${i + 1} (write \`}}\` for a literal brace)`);
    } else {
      text += c;
    }
  }
  if (text) pieces.push({ text });
  return pieces;
}

/** Python `repr()` of a JSON-shaped value. */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return Number.isNaN(value) ? "nan" : Number.isFinite(value) ? String(value) : value > 0 ? "inf" : "-inf";
  if (typeof value === "string") {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const escaped = value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll("\t", "\\t").replaceAll("\r", "\\r");
    return `${quote}${quote === "'" ? escaped.replaceAll("'", "\\'") : escaped}${quote}`;
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`).join(", ")}}`;
}

/** Python `str()` of a JSON-shaped value. */
export function pythonStr(value: unknown): string {
  return typeof value === "string" ? value : pythonRepr(value);
}

/**
 * Fills the template from `values`. A field with no value throws FormatTemplateError naming it and
 * the names that were given (Python raises KeyError).
 */
export function pyFormat(template: string | FormatPiece[], values: Record<string, unknown>): string {
  const pieces = typeof template === "string" ? parseFormatTemplate(template) : template;
  return pieces
    .map((piece) => {
      if ("text" in piece) return piece.text;
      if (!Object.hasOwn(values, piece.field)) {
        throw new FormatTemplateError(`the template references \`{${piece.field}}\`, but only these are given: ${Object.keys(values).join(", ") || "(none)"}`);
      }
      const value = values[piece.field];
      return piece.conversion === "r" ? pythonRepr(value) : pythonStr(value);
    })
    .join("");
}
