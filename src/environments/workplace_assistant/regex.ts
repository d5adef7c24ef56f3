// pandas `Series.str.contains(pattern, case=False)`: the pattern is a Python regular expression searched
// anywhere in each string. Python's `re` and JavaScript's RegExp agree on the patterns a model writes
// (plain words, `.`, `|`, classes); Python-only syntax raises here as `re.error` would upstream.
import { PyError } from "./py.js";

export function containsPattern(pattern: unknown): (value: unknown) => boolean | undefined {
  if (typeof pattern !== "string") throw new PyError("TypeError: first argument must be string or compiled pattern");
  let re: RegExp;
  try {
    // Python's (?P<name>…) and (?P=name) spelled the JavaScript way.
    re = new RegExp(pattern.replace(/\(\?P</g, "(?<").replace(/\(\?P=(\w+)\)/g, "\\k<$1>"), "iu");
  } catch (error) {
    throw new PyError(`error: ${(error as Error).message}`);
  }
  return (value) => (typeof value === "string" ? re.test(value) : undefined);
}
