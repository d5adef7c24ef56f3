// How deeply a JSON text nests, measured on the text itself before anything parses it. Deeply
// nested JSON is cheap to send (5,000 `[` are 5 KB) and makes every recursive walker after
// JSON.parse (schema validation, stringify, structured clone) overflow the stack; refusing it up
// front turns that into a clear 400 / input error instead of a 500 or a crash.

/** Far deeper than any Responses body, tool schema or data row needs; far shallower than the stack allows. */
export const MAX_JSON_DEPTH = 512;

/**
 * The first nesting depth above `max` found in `text` (brackets inside strings do not count), or
 * undefined when the text never nests deeper than `max`. Linear in the text, no allocation.
 */
export function jsonDepthBeyond(text: string, max: number = MAX_JSON_DEPTH): number | undefined {
  // Every request body and input line passes here. Nesting can only go past `max` with more than
  // `max` opening brackets in the text (brackets inside strings count too, so this over-counts,
  // never under-counts): counted with the native indexOf, which skips the text between them far
  // faster than the character loop below.
  if (fewerOpeningsThan(text, max + 1)) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return depth;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return undefined;
}

/** Whether `text` holds fewer than `limit` of `[` and `{` together. */
function fewerOpeningsThan(text: string, limit: number): boolean {
  let seen = 0;
  for (let i = text.indexOf("{"); i !== -1; i = text.indexOf("{", i + 1)) if (++seen >= limit) return false;
  for (let i = text.indexOf("["); i !== -1; i = text.indexOf("[", i + 1)) if (++seen >= limit) return false;
  return true;
}

/** The message both the servers (400) and the input reader (file:line) give for too-deep JSON. */
export function tooDeepMessage(max: number = MAX_JSON_DEPTH): string {
  return `JSON nested more than ${max} levels deep`;
}
