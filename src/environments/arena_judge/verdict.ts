// Reading arena_judge's judge replies and preparing its judge inputs, as NeMo Gym's arena_judge server
// does (resources_servers/arena_judge/app.py at NVIDIA-NeMo/Gym 07d6b0d).
import { VERDICTS, type Verdict } from "./elo.js";

const LABEL = /\[\[([AB<>=]+)\]\]/g;

/**
 * The verdict of one judge reply: every `[[...]]` label made of A, B, <, > and = must be the same,
 * and it must be one of the five verdicts; otherwise (none, several different, or an unknown label
 * such as `[[A<B]]`) there is no verdict.
 */
export function parseVerdict(text: string | null | undefined): Verdict | null {
  if (!text) return null;
  const labels = new Set([...text.matchAll(LABEL)].map((m) => m[1]!));
  if (labels.size !== 1) return null;
  const label = [...labels][0]!;
  return (VERDICTS as readonly string[]).includes(label) ? (label as Verdict) : null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `sanitize_generation`: NeMo Gym round-trips the text through JSON and UTF-8 with replacement, so
 * each lone surrogate becomes three U+FFFD (one per byte of its 3-byte encoding). Its NUL removal
 * acts on the JSON text, where a NUL is already escaped as `\u0000`, so NULs survive: kept here too.
 */
export function sanitizeGeneration(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD\uFFFD\uFFFD");
}
