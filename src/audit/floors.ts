// An environment's audit declaration (`audit.yaml` in its folder): how its answers are written and
// where its rows keep the gold answer and the options (the probes' hints), what its judge says for
// a pass and a fail (judged environments), and the expected floor of each probe — 0 unless declared,
// a chance level stated as such, or "not applicable" with why. Every declared floor carries a reason.
import { existsSync, readFileSync } from "node:fs";
import { parse } from "yaml";
import { z } from "zod";
import { nearest } from "../config/suggest.js";
import { PROBES } from "./probes.js";

const JudgeText = z.union([z.string(), z.record(z.string(), z.string())]);

const Floor = z.union([
  z.strictObject({ floor: z.number().min(0).max(1), reason: z.string().min(1) }),
  z.strictObject({ not_applicable: z.string().min(1) }),
]);

/** One group of per-row floors: the rows whose value at `row_floors.by` is listed, the probes it covers. */
const RowFloorGroup = z.strictObject({
  /** Values at the row's `row_floors.by` path (e.g. task family names). */
  rows: z.array(z.string().min(1)).min(1),
  /** The probes the floor covers (default: every probe but the control). */
  probes: z.array(z.string().min(1)).min(1).optional(),
  floor: z.number().min(0).max(1),
  reason: z.string().min(1),
});

export const AuditDeclaration = z.strictObject({
  /** How a final answer is written; `{answer}` is replaced by the value (default `\boxed{{answer}}`). */
  answer: z.string().includes("{answer}").default("\\boxed{{answer}}"),
  /** Dot path of the gold answer in a row (default: the first of expected_answer, answer, target, …). */
  gold: z.string().min(1).optional(),
  /**
   * A gold held as a JSON list in a string (e.g. `["a", "b"]`) is given to the probes as its items
   * joined by this separator (`a, b`; an empty list gives an empty gold), for answers written as a
   * bare list (e.g. `Final Answer: [{answer}]`).
   */
  gold_join: z.string().optional(),
  /**
   * Environments rewarded on tool outputs rather than on the final text: the positive control first
   * calls this tool once per item of the gold (a JSON list; any other gold is one item), `{item}` in
   * `arguments` replaced by the item as JSON, then gives its answer.
   */
  control_call: z.strictObject({ name: z.string().min(1), arguments: z.string().includes("{item}") }).optional(),
  /** Dot path of the multiple-choice options in a row (default `options`). */
  options: z.string().min(1).optional(),
  /**
   * Rows the audit plays instead of the agents' example datasets (a JSONL path relative to the
   * audit.yaml), e.g. rows whose game is dealt from a fixed deck so a probe's reward is not luck.
   * `--input` still takes precedence.
   */
  rows: z.string().min(1).optional(),
  /**
   * Model instances the environment's config names but does not define (e.g. a GenRM the user gives
   * with --config): the audit defines each as the scripted_model, which answers as the judge
   * (built-in environments).
   */
  models: z.array(z.string().min(1)).default([]),
  /**
   * Environments whose rewards are relative within a cohort of rollouts of one prompt: each (probe,
   * row) is played this many times as one cohort (every rollout playing the probe), and the cell's
   * reward is their mean.
   */
  cohort: z.number().int().min(2).optional(),
  /** Rewards on another scale (e.g. GenRM scores 1-5) are mapped to 0-1 as (r - min) / (max - min) before the floors apply. */
  reward_range: z
    .strictObject({ min: z.number(), max: z.number() })
    .refine((r) => r.max > r.min, { message: "max must be above min" })
    .optional(),
  /**
   * Only these rows (0-based positions in the agents' example datasets, in this order; the first
   * `--rows` of them), e.g. the rows whose gold is not empty on a stand-in database. `--input`
   * ignores it.
   */
  row_indices: z.array(z.number().int().min(0)).min(1).optional(),
  /** Files a verifier might trust that the policy can write (tool.write_verifier). */
  verifier_files: z.array(z.string().min(1)).default(["reward.txt", "result.json", "expected_output.txt", "/tmp/reward.txt"]),
  /**
   * Judged environments: what the scripted judge answers for the control (accept) and for every probe
   * (reject), in the environment's own verdict format. A verdict that depends on the row (e.g. comply
   * with a safe prompt, refuse an unsafe one) is a map from the value at the row's dot path `by`.
   */
  judge: z
    .strictObject({
      accept: JudgeText,
      reject: JudgeText,
      by: z.string().min(1).optional(),
      /** false: the reply is the verdict alone (a judge whose whole reply must be JSON); true: the answer is quoted before it. */
      quote: z.boolean().default(true),
    })
    .refine((j) => j.by !== undefined || (typeof j.accept === "string" && typeof j.reject === "string"), { message: "accept/reject given per row value need `by`: the row's dot path that picks the value" })
    .optional(),
  /**
   * Rollouts the environment refuses by design (e.g. a move it cannot parse answered 400, as NeMo Gym
   * does): failures whose error contains `match` earn 0 and are counted as rejected, not as failures.
   * Every other failed rollout makes its probe an error (a probe that could not be measured is not a pass).
   */
  rejects: z.strictObject({ match: z.string().min(1), reason: z.string().min(1) }).optional(),
  /** The floor of every probe `floors` does not name (e.g. a binary label's chance level). */
  default_floor: z.strictObject({ floor: z.number().min(0).max(1), reason: z.string().min(1) }).optional(),
  /**
   * Floors that differ from row to row (an environment whose rows come from several task families,
   * each scored its own way): each group names rows by the value at the row's dot path `by` and caps
   * each of those rows' reward on its probes. A row under a group is checked on its own (any row above
   * its cap fails the probe); the other rows use the probe's floor. The cell shows the mean floor.
   */
  row_floors: z.strictObject({ by: z.string().min(1), groups: z.array(RowFloorGroup).min(1) }).optional(),
  /** Per probe: a floor above 0 (with its reason), or not applicable (with why). */
  floors: z.record(z.string(), Floor).default({}),
  /** Free text: anything the reader of the report should know. */
  notes: z.string().optional(),
  /**
   * Overrides of the environment's config fields for the audit, e.g. stand-in task data the
   * environment's own tests use instead of a separate download. In string values, `{here}` is the
   * audit.yaml's folder and `{work}` the audit's work folder (where `sqlite` builds its databases).
   * A field the environment does not have is an error naming it.
   */
  config: z.record(z.string(), z.unknown()).default({}),
  /**
   * SQLite databases the audit builds in its work folder before the servers start: path under
   * `{work}` → the SQL script that creates it, from a file (`sql`, relative to the audit.yaml) or
   * from a field of the first audited row (`row_field`; lines that are only `...`, elided sample
   * rows, are dropped).
   */
  sqlite: z
    .record(
      z.string(),
      z.strictObject({ sql: z.string().min(1).optional(), row_field: z.string().min(1).optional() }).refine((d) => (d.sql === undefined) !== (d.row_field === undefined), { message: "give exactly one of sql (a file) or row_field" }),
    )
    .default({}),
  /**
   * The gold answer from a side file rather than the row (e.g. the task file that holds the
   * canonical solution): the JSONL line of `file` (relative to the audit.yaml) whose `file_key`
   * equals the row's value at `row_key`, written out by `template` (`{field}` replaced by that
   * line's field; an empty result is no gold). Used when the row itself carries no gold.
   */
  gold_from: z
    .strictObject({
      file: z.string().min(1),
      row_key: z.string().min(1),
      file_key: z.string().min(1),
      template: z.string().regex(/\{[A-Za-z_][A-Za-z0-9_]*\}/, "must name at least one field of the file's line, as {field}"),
    })
    .optional(),
});
export type AuditDeclaration = z.output<typeof AuditDeclaration>;

/** The keys an object in the declaration may hold at `path` (top level, or a nested object such as `judge`). */
function knownKeysAt(path: ReadonlyArray<PropertyKey>): string[] {
  if (path.length === 0) return Object.keys(AuditDeclaration.shape);
  const nested: Record<string, string[]> = {
    judge: ["accept", "reject", "by", "quote"],
    control_call: ["name", "arguments"],
    rejects: ["match", "reason"],
    default_floor: ["floor", "reason"],
    gold_from: ["file", "row_key", "file_key", "template"],
    reward_range: ["min", "max"],
  };
  const top = String(path[0]);
  if (top === "floors") return ["floor", "reason", "not_applicable"];
  if (top === "sqlite") return ["sql", "row_field"];
  return nested[top] ?? [];
}

/** Reads an audit.yaml (absent → every default); an error names the file and the key. */
export function loadDeclaration(path: string | undefined): AuditDeclaration {
  if (path === undefined || !existsSync(path)) return AuditDeclaration.parse({});
  let value: unknown;
  try {
    value = parse(readFileSync(path, "utf8")) ?? {};
  } catch (error) {
    throw new Error(`${path}: not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  const parsed = AuditDeclaration.safeParse(value);
  if (!parsed.success) {
    // A misspelt key first: the required key it was meant to be is then missing too.
    const issue = parsed.error.issues.find((i) => i.code === "unrecognized_keys") ?? parsed.error.issues[0]!;
    if (issue.code === "unrecognized_keys") {
      const where = issue.path.join(".");
      const known = knownKeysAt(issue.path);
      const key = issue.keys[0]!;
      const near = nearest(key, known);
      throw new Error(`${path}: ${where ? `${where}.` : ""}${key}: not an audit.yaml key${near ? ` (did you mean ${where ? `${where}.` : ""}${near}?)` : ""}; keys${where ? ` of ${where}` : ""}: ${known.join(", ")}`);
    }
    throw new Error(`${path}: ${issue.path.join(".") || "(top level)"}: ${issue.message}`);
  }
  const known = new Set(PROBES.map((p) => p.name));
  const check = (name: string, where: string) => {
    if (!known.has(name)) {
      const near = [...known].filter((k) => k.split(".")[1] === name.split(".")[1] || k.startsWith(name.split(".")[0] ?? ""));
      throw new Error(`${path}: ${where}: no probe named ${name}${near.length ? ` (did you mean ${near.slice(0, 3).join(", ")}?)` : ""}; probes: ${[...known].join(", ")}`);
    }
  };
  for (const name of Object.keys(parsed.data.floors)) check(name, `floors.${name}`);
  parsed.data.row_floors?.groups.forEach((group, i) => group.probes?.forEach((name, j) => check(name, `row_floors.groups.${i}.probes.${j}`)));
  return parsed.data;
}
