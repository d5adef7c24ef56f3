// Whether `pd.Timestamp(value)` (pandas 2.3, as NVIDIA-NeMo/Gym 07d6b0d's calendar tool calls it to
// validate event_start) accepts a value or raises ValueError. pandas takes ISO 8601 directly and hands
// other strings to dateutil's parser; this covers the forms a model writes for a meeting time (ISO
// dates and times, slashed and dotted dates, month names, weekday names, 12-hour clocks, "now" and
// "today") and rejects the rest. Proven against real pandas in timestamp_cases.json.
import { PyError } from "./py.js";

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH_WORDS = new Map<string, number>();
["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"].forEach((m, i) => {
  MONTH_WORDS.set(m, i + 1);
  MONTH_WORDS.set(MONTHS[i]!, i + 1);
});
MONTH_WORDS.set("sept", 9);
const WEEKDAYS = new Set(["mon", "tue", "wed", "thu", "fri", "sat", "sun", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "tues", "thur", "thurs"]);

const daysIn = (year: number, month: number) => [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;

function validDate(y: number, m: number, d: number): boolean {
  return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m) && y >= 1677 && y <= 2262;
}

const TIME = String.raw`(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?`;
const TZ = String.raw`(?:\s*(?:Z|[A-Z]{3,5}|[+-]\d{2}(?::?\d{2})?))?`;
const TZ_WORDS = new Set(["z", "utc", "gmt", "est", "edt", "cst", "cdt", "mst", "mdt", "pst", "pdt", "cet", "cest", "bst", "ist", "eet", "jst"]);

function validTime(h: string, mi: string, s: string | undefined, ampm?: string): boolean {
  let hour = Number(h);
  if (ampm) {
    // dateutil takes 0 to 12 with am/pm.
    if (hour > 12) return false;
    hour = hour % 12;
  }
  return hour <= 23 && Number(mi) <= 59 && (s === undefined || Number(s) <= 59);
}

/** True when pandas' `pd.Timestamp(value)` returns (a time or NaT), false when it raises ValueError. */
export function timestampParses(value: string): boolean {
  const text = value.trim();
  const lower = text.toLowerCase();
  if (lower === "" || lower === "now" || lower === "today" || lower === "nat") return true;
  // A leading weekday name ("Thursday 2023-12-07 10:00"): the rest decides, and must name a day.
  const weekday = /^([a-z]+)\.?,?\s+(\S.*)$/.exec(lower);
  if (weekday && WEEKDAYS.has(weekday[1]!) && /\d/.test(weekday[2]!)) return timestampParses(text.slice(text.length - weekday[2]!.length));
  // ISO 8601 date with optional time.
  let m = new RegExp(String.raw`^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ]+${TIME}\s*(am|pm)?${TZ})?$`, "i").exec(text);
  if (m) return validDate(+m[1]!, +m[2]!, +m[3]!) && (m[4] === undefined || validTime(m[4], m[5]!, m[6], m[8]?.toLowerCase()));
  // An ISO date followed by a spoken clock time ("2023-12-01 10am", "2023-12-01 at 10:00").
  m = /^(\d{4})-(\d{1,2})-(\d{1,2})\s+(.+)$/.exec(text);
  if (m) {
    if (!validDate(+m[1]!, +m[2]!, +m[3]!)) return false;
    const rest = m[4]!.toLowerCase().split(/\s+/).filter((t) => t !== "at");
    if (rest.length === 0 || rest.length > 2) return false;
    const clock = new RegExp(String.raw`^(?:${TIME}|(\d{1,2}))(am|pm)?$`).exec(rest[0]!);
    if (!clock) return false;
    const ampm = clock[6] ?? (rest[1] === "am" || rest[1] === "pm" ? rest[1] : rest[1] === undefined ? undefined : "bad");
    if (ampm === "bad") return false;
    if (clock[5] !== undefined) return ampm !== undefined && validTime(clock[5], "00", undefined, ampm);
    return validTime(clock[1]!, clock[2]!, clock[3], ampm);
  }
  m = /^(\d{4})-(\d{1,2})$/.exec(text);
  if (m) return validDate(+m[1]!, +m[2]!, 1);
  m = /^(\d{4})$/.exec(text);
  if (m) return validDate(+m[1]!, 1, 1);
  m = /^(\d{4})(\d{2})(\d{2})(?:T?(\d{2})(\d{2})(\d{2})?)?$/.exec(text);
  if (m) return validDate(+m[1]!, +m[2]!, +m[3]!) && (m[4] === undefined || validTime(m[4], m[5]!, m[6]));
  // Slashed or dotted dates: Y/M/D, M/D/Y (or D/M/Y when the first part cannot be a month).
  m = new RegExp(String.raw`^(\d{1,4})([/.-])(\d{1,2})\2(\d{1,4})(?:[ T,]+${TIME}\s*(am|pm)?)?$`, "i").exec(text);
  if (m) {
    const [a, b, c] = [+m[1]!, +m[3]!, +m[4]!];
    const timeOk = m[5] === undefined || validTime(m[5], m[6]!, m[7], m[9]?.toLowerCase());
    if (m[1]!.length === 4) return validDate(a, b, c) && timeOk;
    const year = m[4]!.length <= 2 ? 2000 + c : c;
    return (validDate(year, a, b) || validDate(year, b, a)) && timeOk;
  }
  // Words: month names, weekday names, day and year numbers, a clock time, am/pm.
  const tokens = lower.replace(/,/g, " ").split(/\s+/).filter(Boolean);
  let month: number | undefined;
  const numbers: number[] = [];
  let clock: RegExpExecArray | null = null;
  let ampm: string | undefined;
  let sawWord = false;
  let sawWeekday = false;
  for (const token of tokens) {
    const t = token.replace(/\.$/, "");
    const bare = /^(\d{1,2})(st|nd|rd|th)$/.exec(t);
    const timeTok = new RegExp(String.raw`^${TIME}(am|pm)?$`).exec(t);
    const hourAmPm = /^(\d{1,2})(am|pm)$/.exec(t);
    if (MONTH_WORDS.has(t)) {
      if (month !== undefined) return false;
      month = MONTH_WORDS.get(t);
      sawWord = true;
    } else if (WEEKDAYS.has(t)) {
      sawWord = true;
      sawWeekday = true;
    }
    else if (t === "am" || t === "pm" || t === "a.m" || t === "p.m") ampm = t[0] === "a" ? "am" : "pm";
    else if (TZ_WORDS.has(t) && clock) continue;
    else if (timeTok) {
      if (clock) return false;
      clock = timeTok;
      if (timeTok[5]) ampm = timeTok[5];
    } else if (hourAmPm) {
      if (clock) return false;
      clock = [t, hourAmPm[1]!, "00"] as unknown as RegExpExecArray;
      ampm = hourAmPm[2];
    } else if (bare) numbers.push(+bare[1]!);
    else if (/^\d{1,4}$/.test(t)) numbers.push(+t);
    // dateutil's filler words.
    else if (t === "at" || t === "on" || t === "of" || t === "and" || t === "ad") continue;
    else return false;
  }
  if (clock && !validTime(clock[1]!, clock[2]!, clock[3], ampm)) return false;
  if (!clock && ampm && numbers.length === 0) return false;
  // pandas refuses a weekday with no day of the month ("Monday").
  if (sawWeekday && !numbers.some((n) => n <= 31)) return false;
  if (month === undefined) return (sawWord || clock !== null) && numbers.length === 0;
  const year = numbers.find((n) => n > 31) ?? 2000;
  const days = numbers.filter((n) => n <= 31);
  if (numbers.length > 2 || days.length > 2) return false;
  const day = days[0] ?? 1;
  return validDate(year, month, day);
}

/**
 * `pd.Timestamp(value)` as milliseconds since the epoch (UTC wall clock), for ordering and date
 * comparisons: exact for ISO dates and date-times (all the tables hold), through `Date.parse` for
 * other accepted forms. Throws (a ValueError) where pandas would.
 */
export function timestampOf(value: unknown): number {
  if (typeof value === "number" && Number.isFinite(value)) return value / 1e6;
  if (typeof value !== "string" || !timestampParses(value)) throw new PyError(`ValueError: could not convert string to Timestamp`);
  const m = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?/.exec(value);
  if (m) return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), +(m[7] ?? "0").padEnd(3, "0"));
  // Other accepted forms: as JavaScript reads them (NaN where it cannot, which compares false).
  const parsed = Date.parse(value.replace(/\b(\d{1,2})\s*(am|pm)\b/i, "$1:00 $2"));
  return Number.isNaN(parsed) ? NaN : parsed - new Date(parsed).getTimezoneOffset() * 60_000;
}
