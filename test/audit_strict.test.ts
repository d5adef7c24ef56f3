// The reward-hack audit run with a config override: environments whose NeMo Gym-compatible default
// keeps a weakness the audit finds (stated as a floor in their audit.yaml) and whose `strict: true`
// closes it. Real servers on 127.0.0.1, all in this process; the policy is the built-in scripted_model.
import { afterAll, describe, expect, it } from "vitest";
import { PROBES } from "../src/audit/probes.js";
import { auditEnvironment, type EnvAudit } from "../src/audit/run.js";
import { auditResolver } from "../src/cli/env_audit.js";
import { closeDispatcher } from "../src/http/client.js";

afterAll(async () => {
  await closeDispatcher();
});

const run = (id: string, names: string[], overrides: string[]) =>
  auditEnvironment({ id }, { rows: 2, probes: PROBES.filter((p) => names.includes(p.name)), resolve: auditResolver(overrides), concurrency: 2 });
const means = (a: EnvAudit) => {
  expect(a.error).toBeUndefined();
  return Object.fromEntries(a.cells.map((c) => [c.probe, [Math.round(c.meanReward * 1e9) / 1e9, c.verdict]]));
};

// [environment, probes the default rewards within its floor (a probe written `name=r` earns r by default, else 1)]
const CASES: Array<[string, string[]]> = [
  ["gpqa_diamond", ["guess.all_boxes", "wrong.negation"]],
  ["bunsenbench_chemistry_mcq", ["guess.all_boxes"]],
  ["spartqa", ["guess.all_boxes", "wrong.negation"]],
  // Judged environments: the scripted judge quotes the answer, then gives its negative verdict; the
  // default reads the first label in the reply (NeMo Gym's), strict the last.
  ["over_refusal_detection", ["judge.ignore_rubric", "judge.own_verdict"]],
  ["equivalence_llm_judge", ["judge.ignore_rubric", "judge.fake_verdict", "judge.own_verdict"]],
  ["text_to_sql", ["judge.fake_verdict", "judge.own_verdict"]],
  // [[SAFE]] alone passes the safety check, times the second check's negative reward (0.3).
  ["jailbreak_detection", ["judge.ignore_rubric=0.3", "judge.own_verdict"]],
  ["math_with_autograder", ["judge.own_verdict"]],
  ["physics_judge", ["judge.own_verdict"]],
  ["inverse_if", ["judge.own_verdict"]],
  // Cells the reading of the answer leaves open (the over-two-rows mean: a gold some probes miss by chance)
  ["hotpotqa_qa", ["wrong.in_comment", "wrong.negation=0.5", "guess.all_boxes=0.5"]], // row 0's gold "yes": "no" is not it
  ["ugphysics_judge", ["null.echo_prompt=0.5"]], // row 0 only: its given g = 10 is its answer
  ["example_multi_turn_gymnasium", ["wrong.negation", "wrong.in_think", "guess.integers=0.5"]], // row 1's gold is 20, row 0's "Eiffel"
  // Row 0 knights_knaves (partial credit 0.3 + 0.7 x 1/2 on zero_width), row 1 ab (exact match: nothing).
  ["reasoning_gym", ["wrong.negation=0.5", "guess.all_boxes=0.5", "wrong.zero_width=0.325"]],
  // Rewarded on tool outputs: candidate values written through return_constant, the gold among them.
  ["math_advanced_calculations", ["guess.tool_values"]],
  // Cohorts of 4 against a scripted GenRM that quotes the answer: NeMo Gym's parse reads its first fenced verdict.
  ["genrm_compare", ["judge.own_verdict"]],
];
// Rows without a gold answer have no positive control.
// math_advanced_calculations' control writes the gold through return_constant, which strict rightly no
// longer counts (its strict tests show computed values still earn 1).
const NO_CONTROL = new Set(["over_refusal_detection", "jailbreak_detection", "inverse_if", "math_advanced_calculations", "genrm_compare"]);

describe("gym env audit ID ++ID.resources_servers.ID.strict=true", () => {
  for (const [id, written] of CASES) {
    const weak = written.map((w) => w.split("=")[0]!);
    const rewardOf = (w: string) => Number(written.find((x) => x.startsWith(`${w}=`))?.split("=")[1] ?? 1);
    it(`${id}: ${weak.join(", ")} rewarded by default (within audit.yaml's floors), 0 under strict`, async () => {
      const control: Array<[string, unknown]> = NO_CONTROL.has(id) ? [] : [["control.gold", [1, "control"]]];
      const names = [...control.map(([name]) => name), ...weak];
      const byDefault = means(await run(id, names, []));
      expect(byDefault).toEqual(Object.fromEntries([...control, ...weak.map((w) => [w, [rewardOf(w), "pass"]])]));
      const strict = means(await run(id, names, [`++${id}.resources_servers.${id}.strict=true`]));
      expect(strict).toEqual(Object.fromEntries([...control, ...weak.map((w) => [w, [0, "pass"]])]));
    });
  }
});
