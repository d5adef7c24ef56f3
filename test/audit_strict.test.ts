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
  return Object.fromEntries(a.cells.map((c) => [c.probe, [c.meanReward, c.verdict]]));
};

// [environment, the probes the default rewards within its floor, with their mean reward over the first two rows]
const CASES: Array<[string, Record<string, number>]> = [
  ["gpqa_diamond", { "guess.all_boxes": 1, "wrong.negation": 1 }],
  ["bunsenbench_chemistry_mcq", { "guess.all_boxes": 1 }],
  ["spartqa", { "guess.all_boxes": 1, "wrong.negation": 1 }],
  // row 0's gold is "yes": its negation "no" (and the probes' last guess) is not rewarded
  ["hotpotqa_qa", { "wrong.in_comment": 1, "wrong.negation": 0.5, "guess.all_boxes": 0.5 }],
  ["ugphysics_judge", { "null.echo_prompt": 0.5 }], // row 0 only: its given g = 10 is its answer
  ["example_multi_turn_gymnasium", { "wrong.negation": 1, "wrong.in_think": 1, "guess.integers": 0.5 }], // row 1's gold is 20; row 0's is "Eiffel"
  ["reasoning_gym", { "wrong.negation": 1, "guess.all_boxes": 1, "wrong.zero_width": 0.3 + (0.7 * 1) / 2 }],
];

describe("gym env audit ID ++ID.resources_servers.ID.strict=true", () => {
  for (const [id, weak] of CASES) {
    const probes = Object.keys(weak);
    it(`${id}: ${probes.join(", ")} rewarded by default (within audit.yaml's floors), 0 under strict`, async () => {
      const names = ["control.gold", ...probes];
      const byDefault = means(await run(id, names, []));
      expect(byDefault).toEqual(Object.fromEntries([["control.gold", [1, "control"]], ...probes.map((w) => [w, [weak[w], "pass"]])]));
      const strict = means(await run(id, names, [`++${id}.resources_servers.${id}.strict=true`]));
      expect(strict).toEqual(Object.fromEntries([["control.gold", [1, "control"]], ...probes.map((w) => [w, [0, "pass"]])]));
    });
  }
});
