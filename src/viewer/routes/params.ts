// Query and path parameters of the viewer's API, checked: a bad value is a 400 that says what was
// expected, never a silent default.
import { HttpError } from "../../http/errors.js";

export type Query = Record<string, string | undefined>;

export const clip = (text: string, chars: number) => (text.length > chars ? `${text.slice(0, chars - 1)}…` : text);

/** JSON has no NaN or Infinity: a missing reward is null. */
export const finite = (value: number) => (Number.isFinite(value) ? value : null);

export function integerParam(query: Query, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = query[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > max) throw new HttpError(400, `${name} must be a whole number from 0 to ${max}, got ${JSON.stringify(text)}`);
  return value;
}

export function numberParam(query: Query, name: string): number | undefined {
  const text = query[name];
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new HttpError(400, `${name} must be a number, got ${JSON.stringify(text)}`);
  return value;
}

export function choiceParam<T extends string>(query: Query, name: string, choices: readonly T[]): T {
  const text = query[name];
  if (text === undefined || text === "") return choices[0]!;
  if (!(choices as readonly string[]).includes(text)) throw new HttpError(400, `${name} must be one of ${choices.join(", ")}, got ${JSON.stringify(clip(text, 100))}`);
  return text as T;
}

export function pairParams(params: Record<string, string>, names: string[]): number[] {
  return names.map((name) => {
    const value = Number(params[name]);
    if (!/^\d+$/.test(params[name] ?? "") || !Number.isSafeInteger(value)) throw new HttpError(400, `${name} must be a whole number ≥ 0, got ${JSON.stringify(params[name])}`);
    return value;
  });
}

/** `offset` and `limit` of a paged list (limit at least 1). */
export function pageParams(query: Query, limitDefault: number, limitMax: number): { offset: number; limit: number } {
  return { offset: integerParam(query, "offset", 0), limit: Math.max(1, integerParam(query, "limit", limitDefault, limitMax)) };
}
