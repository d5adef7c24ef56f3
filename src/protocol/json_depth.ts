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

/** The message both the servers (400) and the input reader (file:line) give for too-deep JSON. */
export function tooDeepMessage(max: number = MAX_JSON_DEPTH): string {
  return `JSON nested more than ${max} levels deep`;
}
