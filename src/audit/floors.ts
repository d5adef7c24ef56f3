// An environment's audit declaration (`audit.yaml` in its folder): how its answers are written and
// where its rows keep the gold answer and the options (the probes' hints), what its judge says for
// a pass and a fail (judged environments), and the expected floor of each probe — 0 unless declared,
// a chance level stated as such, or "not applicable" with why. Every declared floor carries a reason.
import { existsSync, readFileSync } from "node:fs";
import { parse } from "yaml";
import { z } from "zod";
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
});
export type AuditDeclaration = z.output<typeof AuditDeclaration>;

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
    const issue = parsed.error.issues[0]!;
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
