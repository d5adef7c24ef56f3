// Growing a run that was already planned (`--resume --extend`): more repeats, more seeds, more rows.
// The new plan is made beside the old one and may only add pairs: every (task, rollout) the old plan
// asked for must be in the new one with the very same request, or results already on disk would
// answer a different question. Only then does the new plan replace the old, and the fingerprint
// records what the run was before, so the file says how it grew.
import { createHash } from "node:crypto";
import { renameSync, rmSync } from "node:fs";
import { FileError } from "../config/file_errors.js";
import { readFingerprint, writeFingerprint, type PlanFingerprint } from "./fingerprint.js";
import { scanLines } from "./line_scan.js";
import { pairKey, pairOf, pairOfLine } from "./lines.js";
import { PlanError } from "./plan.js";

export interface PlanExtension {
  /** Pairs the old plan held. */
  before: number;
  /** Pairs the new plan holds (before + added). */
  after: number;
}

/** A recorded extension: what the run was planned from before it grew. */
export interface ExtensionRecord {
  extended_at: string;
  before: Pick<PlanFingerprint, "input" | "settings">;
  pairs_before: number;
  pairs_after: number;
}

function lineDigest(text: string): string {
  return createHash("sha1").update(text).digest("base64");
}

/**
 * Writes the new plan with `writePlan` next to `planPath`, checks it only adds to the old one, and
 * puts it in place with the new fingerprint; throws PlanError (the old plan untouched) otherwise.
 */
export async function extendPlan(options: {
  planPath: string;
  fingerprintPath: string;
  requested: PlanFingerprint;
  writePlan: (planPath: string) => Promise<number>;
}): Promise<PlanExtension> {
  const candidate = `${options.planPath}.extension`;
  try {
    await options.writePlan(candidate);
    const old = new Map<number, string>();
    for (const { text } of scanLines(options.planPath)) {
      const pair = pairOfLine(text);
      if (pair) old.set(pairKey(pair[0], pair[1]), lineDigest(text));
    }
    const before = old.size;
    let after = 0;
    let changed: number | undefined;
    for (const { text } of scanLines(candidate)) {
      after++;
      const pair = pairOfLine(text);
      if (!pair) continue;
      const key = pairKey(pair[0], pair[1]);
      const digest = old.get(key);
      if (digest === undefined) continue;
      if (digest !== lineDigest(text)) changed ??= key;
      old.delete(key);
    }
    if (changed !== undefined || old.size > 0) throw new PlanError(refusal(changed, old));
    const planned = readFingerprint(options.fingerprintPath);
    renameSync(candidate, options.planPath);
    const history = (planned as { extensions?: ExtensionRecord[] } | undefined)?.extensions ?? [];
    const record: ExtensionRecord | undefined = planned && {
      extended_at: new Date().toISOString(),
      before: { input: planned.input, settings: planned.settings },
      pairs_before: before,
      pairs_after: after,
    };
    writeFingerprint(options.fingerprintPath, { ...options.requested, ...(record || history.length ? { extensions: [...history, ...(record ? [record] : [])] } : {}) } as PlanFingerprint);
    return { before, after };
  } finally {
    rmSync(candidate, { force: true });
  }
}

function refusal(changed: number | undefined, dropped: ReadonlyMap<number, string>): string {
  const name = (key: number) => {
    const [task, rollout] = pairOf(key);
    return `(task ${task}, rollout ${rollout})`;
  };
  const why =
    changed !== undefined
      ? `pair ${name(changed)} would be asked differently than the run already asked it`
      : `${dropped.size} pair(s) of the run would no longer be asked for, e.g. ${name(dropped.keys().next().value!)}`;
  return (
    `--extend: the new settings do not only add to the plan: ${why}. ` +
    "Extending may add repeats (when no seeds were given), seeds or input rows, never change a request; " +
    "collect other settings into another --output"
  );
}

/** Refuses `--extend` across commands (a reverify's output is not a run's plan to grow). */
export function checkExtensible(planned: PlanFingerprint, requested: PlanFingerprint, outputPath: string): void {
  if (planned.command !== requested.command) {
    throw new FileError(`--resume --extend ${outputPath}: that output was made by \`gym ${planned.command}\`, not \`gym ${requested.command}\``);
  }
}
