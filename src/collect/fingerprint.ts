// The fingerprint of a run's plan: everything that decides which (task, rollout) pairs a run asks
// for and what each request holds: the input's content, --limit, num_repeats, --shard, the seed
// rule, sampling overrides and the default agent. It is written beside the plan
// (`<stem>_plan_fingerprint.json`; the plan itself stays the NeMo Gym-shaped JSONL) so that `--resume`
// can refuse to continue a run with other settings, or another run's output, and say what differs.
import { createHash } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, readSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { FileError } from "../config/file_errors.js";

export const FINGERPRINT_VERSION = 1;

export interface PlanFingerprint {
  gymkit_plan_fingerprint: number;
  /** The command that planned: a reverify's output is not a run's to resume, and vice versa. */
  command: string;
  input: { path: string; bytes: number; sha256: string };
  /** Plan-deciding settings; a key is absent when not set. */
  settings: Record<string, unknown>;
}

function sha256Of(path: string): string {
  const hash = createHash("sha256");
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(1 << 20);
    for (let position = 0; ; ) {
      const n = readSync(fd, buffer, 0, buffer.length, position);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      position += n;
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

export function fingerprintOf(command: string, inputPath: string, settings: Record<string, unknown>): PlanFingerprint {
  const defined = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined && v !== null && !(typeof v === "object" && Object.keys(v as object).length === 0)));
  let path = inputPath;
  try {
    path = realpathSync(inputPath);
  } catch {
    // Hashing below names the file if it cannot be read.
  }
  return { gymkit_plan_fingerprint: FINGERPRINT_VERSION, command, input: { path, bytes: statSync(inputPath).size, sha256: sha256Of(inputPath) }, settings: defined };
}

export function writeFingerprint(path: string, fingerprint: PlanFingerprint): void {
  writeFileSync(path, `${JSON.stringify(fingerprint, null, 2)}\n`);
}

export function readFingerprint(path: string): PlanFingerprint | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as PlanFingerprint;
    if (typeof value?.gymkit_plan_fingerprint === "number" && value.input && value.settings) return value;
  } catch {
    // Unreadable: reported below like a wrong one.
  }
  throw new FileError(`${path} is not a plan fingerprint gym can read; remove it to resume without the check, or start over with --overwrite`);
}

/** Keys in a stable order, so two equal settings always print (and compare) alike. */
function stable(value: unknown): string {
  if (value === undefined) return "(not set)";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(",")}}`;
}

/** What differs between the planned and the requested run, each as "what: old → new". */
export function differences(planned: PlanFingerprint, requested: PlanFingerprint): string[] {
  const out: string[] = [];
  if (planned.command !== requested.command) out.push(`command: ${planned.command} → ${requested.command}`);
  if (planned.input.sha256 !== requested.input.sha256) {
    const short = (f: PlanFingerprint["input"]) => `${f.path} (${f.bytes} bytes, sha256 ${f.sha256.slice(0, 12)}…)`;
    out.push(`input: ${short(planned.input)} → ${short(requested.input)}`);
  }
  const keys = [...new Set([...Object.keys(planned.settings), ...Object.keys(requested.settings)])].sort();
  for (const key of keys) {
    const before = stable(planned.settings[key]);
    const after = stable(requested.settings[key]);
    if (before !== after) out.push(`${key}: ${before} → ${after}`);
  }
  return out;
}

/**
 * True when the only change is more repeats for some agents (never fewer): a plan extension, which
 * needs its own treatment (new rollout indices for every task) rather than a plain resume.
 */
export function isRepeatsExtension(planned: PlanFingerprint, requested: PlanFingerprint): boolean {
  const changed = differences(planned, requested);
  if (changed.length !== 1 || !changed[0]!.startsWith("num_repeats:")) return false;
  const before = planned.settings.num_repeats ?? 1;
  const after = requested.settings.num_repeats ?? 1;
  if (typeof before === "number" && typeof after === "number") return after > before;
  if (typeof before === "object" && typeof after === "object" && before && after) {
    const a = before as Record<string, number>;
    const b = after as Record<string, number>;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => (b[k] ?? b._default ?? 1) >= (a[k] ?? a._default ?? 1));
  }
  return false;
}
