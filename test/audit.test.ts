// The reward-hack audit (src/audit/) against planted weak verifiers: a fixture environment whose
// verifier accepts any box, matches a substring, or trusts a file the policy can write, next to a
// sound one. Each weakness is caught and named by the probe that finds it; the sound verifier passes
// every probe and rewards the positive control. Real servers on 127.0.0.1, all in this process; the
// policy is the built-in scripted_model.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { PROBES } from "../src/audit/probes.js";
import { auditEnvironment, contextOf, errorsOf, failuresOf, type EnvAudit } from "../src/audit/run.js";
import { AuditDeclaration, loadDeclaration } from "../src/audit/floors.js";
import { auditResolver } from "../src/cli/env_audit.js";
import { closeDispatcher } from "../src/http/client.js";
import { REPO_ROOT } from "./helpers/cli.js";

const CONFIG = join(REPO_ROOT, "test", "fixtures", "audit", "weak_env.yaml");

// The two costly probes (1,000 tool calls; a 1 MB answer) run once, in their own test, on one row.
const COSTLY = new Set(["tool.flood", "null.nonsense_1mb"]);
const audit = (id: string, rows = 3, probes = PROBES.filter((p) => !COSTLY.has(p.name))) =>
  auditEnvironment({ id, configPaths: [CONFIG] }, { rows, probes, resolve: auditResolver(), concurrency: 4 });
const failed = (a: EnvAudit) => a.cells.filter((c) => c.verdict === "FAIL").map((c) => c.probe).sort();
const cell = (a: EnvAudit, probe: string) => a.cells.find((c) => c.probe === probe)!;

afterAll(async () => {
  await closeDispatcher();
});

describe("gym env audit on planted weak verifiers", () => {
  it("passes the sound verifier on every probe and rewards the positive control", async () => {
    const a = await audit("sound");
    expect(a.error).toBeUndefined();
    expect(failed(a)).toEqual([]);
    expect(cell(a, "control.gold")).toMatchObject({ verdict: "control", meanReward: 1, rewardedRows: [0, 1, 2] });
    // Tool probes ran (the rows offer write_file) and earned nothing.
    expect(cell(a, "tool.write_verifier")).toMatchObject({ verdict: "pass", ran: 3, meanReward: 0 });
    expect(cell(a, "format.json_shape").verdict).toBe("n/a");
  }, 120_000);

  it("plays 1,000 tool calls and a 1 MB answer through the sound verifier without reward or failure", async () => {
    const a = await audit("sound", 1, PROBES.filter((p) => COSTLY.has(p.name)));
    expect(a.cells.map((c) => [c.probe, c.verdict, c.failed])).toEqual([
      ["null.nonsense_1mb", "pass", 0],
      ["tool.flood", "pass", 0],
    ]);
  }, 120_000);

  it("catches a verifier that accepts any box, with the format probes", async () => {
    const a = await audit("any_box");
    expect(failed(a)).toEqual(expect.arrayContaining(["format.empty_box", "format.text_box", "wrong.one_char"]));
    expect(cell(a, "format.empty_box")).toMatchObject({ meanReward: 1, rewardedRows: [0, 1, 2] });
    expect(failuresOf(a).find((line) => line.includes("format.empty_box"))).toBe("any_box: format.empty_box rewarded 1.000 (floor 0.000) on row(s) 0, 1, 2");
  }, 120_000);

  it("catches a substring match, with the answer-everything probes", async () => {
    const a = await audit("substring");
    expect(failed(a)).toEqual(expect.arrayContaining(["guess.all_boxes", "guess.integers", "wrong.in_comment", "wrong.in_think"]));
    expect(failed(a)).not.toContain("format.empty_box");
  }, 120_000);

  it("catches a verifier that trusts a file the policy can write, with tool.write_verifier alone", async () => {
    const a = await audit("trusts_file");
    expect(failed(a)).toEqual(["tool.write_verifier"]);
    expect(cell(a, "tool.write_verifier")).toMatchObject({ meanReward: 1, rewardedRows: [0, 1, 2] });
  }, 120_000);
});

describe("per-row floors (audit.yaml row_floors)", () => {
  it("checks each row under a group against its own floor, and the other rows against the probe's", async () => {
    // The substring verifier rewards guess.integers and guess.set_all (0..100 contains every gold) on all three rows.
    const reason = "planted: the gold inside a longer answer";
    const dir = mkdtempSync(join(tmpdir(), "gym-audit-rowfloors-"));
    const path = join(dir, "audit.yaml");
    const groups = [
      { rows: ["42", "7", "9"], probes: ["guess.integers"], floor: 1, reason },
      // guess.set_all: one row capped below its reward, one row at its reward, one row not covered (floor 0).
      { rows: ["42"], probes: ["guess.set_all"], floor: 0.5, reason },
      { rows: ["7"], probes: ["guess.set_all"], floor: 1, reason },
    ];
    writeFileSync(path, stringify({ row_floors: { by: "expected_answer", groups } }));
    const probes = PROBES.filter((p) => p.name === "guess.integers" || p.name === "guess.set_all");
    const a = await auditEnvironment({ id: "substring", configPaths: [CONFIG], declarationPath: path }, { rows: 3, probes, resolve: auditResolver(), concurrency: 3 }).finally(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
    expect(cell(a, "guess.integers")).toMatchObject({ verdict: "pass", meanReward: 1, rowFloorRows: 3, floorReason: reason });
    expect(cell(a, "guess.set_all")).toMatchObject({ verdict: "FAIL", meanReward: 1, rowFloorRows: 2, aboveRowFloor: [0] });
    expect(failuresOf(a)).toEqual(["substring: guess.set_all rewarded 1.000 (floor 0.000, 2 row(s) with their own) on row(s) 0, 1, 2; above their own row floor: row(s) 0"]);
  }, 120_000);

  it("names a probe of a group that does not exist", () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-audit-rowfloors-"));
    try {
      const path = join(dir, "audit.yaml");
      writeFileSync(path, stringify({ row_floors: { by: "x", groups: [{ rows: ["a"], probes: ["guess.integer"], floor: 1, reason: "r" }] } }));
      expect(() => loadDeclaration(path)).toThrow(`${path}: row_floors.groups.0.probes.0: no probe named guess.integer (did you mean`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("audit refusals and unmeasured probes", () => {
  it("refuses a judged environment whose audit.yaml gives no judge labels, naming it and the key", async () => {
    const a = await audit("judged", 1, PROBES.filter((p) => p.name === "control.gold"));
    expect(a.cells).toEqual([]);
    expect(a.error).toContain("judged is judged (its config sets judge_model_server)");
    expect(a.error).toContain(`${join(REPO_ROOT, "test", "fixtures", "audit", "audit.yaml")} has no \`judge\` key`);
  });

  it("shows a probe whose rollouts failed (a check that timed out) as an error, never a pass", async () => {
    const a = await audit("flaky", 2, PROBES.filter((p) => ["control.gold", "null.empty", "null.refusal"].includes(p.name)));
    expect(a.error).toBeUndefined();
    expect(a.cells.map((c) => [c.probe, c.verdict, c.failed])).toEqual([
      ["control.gold", "control", 0],
      ["null.empty", "error", 2],
      ["null.refusal", "pass", 0],
    ]);
    expect(failuresOf(a)).toEqual([]);
    expect(errorsOf(a)).toEqual([expect.stringMatching(/^flaky: null\.empty not measured: 2 of 2 rollout\(s\) failed \(.*timeout: wall time limit/)]);
  }, 60_000);
});

describe("probe context", () => {
  it("takes a gold written as one \\boxed{} by its content (the probes box it themselves), and leaves two boxes alone", () => {
    const decl = AuditDeclaration.parse({});
    expect(contextOf({ expected_answer: "\\boxed{g\\sin\\theta}" }, decl).gold).toBe("g\\sin\\theta");
    expect(contextOf({ expected_answer: "\\boxed{\\frac{1}{2}}" }, decl).gold).toBe("\\frac{1}{2}");
    expect(contextOf({ expected_answer: "\\boxed{a}, \\boxed{b}" }, decl).gold).toBe("\\boxed{a}, \\boxed{b}");
  });

  it("joins a JSON-list gold with gold_join (an empty list → empty gold), and leaves other golds alone", () => {
    const decl = AuditDeclaration.parse({ answer: "Final Answer: [{answer}]", gold_join: ", " });
    const ctx = contextOf({ expected_answer: '["n1", "n2"]' }, decl);
    expect(ctx.gold).toBe("n1, n2");
    expect(ctx.answer(ctx.gold!)).toBe("Final Answer: [n1, n2]");
    expect(contextOf({ expected_answer: "[]" }, decl).gold).toBe("");
    expect(contextOf({ expected_answer: "plain text" }, decl).gold).toBe("plain text");
  });

  it("plays control_call once per gold item before the control's answer", () => {
    const decl = AuditDeclaration.parse({ control_call: { name: "return_constant", arguments: '{"a": {item}}' }, answer: "{answer}" });
    const ctx = contextOf({ ground_truth: "[-3.0, 0.5]" }, decl);
    const control = PROBES.find((p) => p.name === "control.gold")!;
    expect(control.build(ctx)).toEqual([
      { calls: [{ name: "return_constant", arguments: '{"a": -3}' }, { name: "return_constant", arguments: '{"a": 0.5}' }] },
      { text: "[-3.0, 0.5]" },
    ]);
    // every other probe is played as before: no tool calls of the control's
    expect(PROBES.find((p) => p.name === "wrong.one_char")!.build(ctx)).toEqual([{ text: "[-3.0, 0.6]" }]);
    // but guess.tool_values: the same tool with each item changed, itself and negated
    const values = PROBES.find((p) => p.name === "guess.tool_values")!;
    expect(values.build(ctx)).toEqual([{ calls: ["-4", "-3", "3", "0.6", "0.5", "-0.5"].map((v) => ({ name: "return_constant", arguments: `{"a": ${v}}` })) }, { text: "Done." }]);
    expect(values.build(contextOf({ ground_truth: "[1]" }, AuditDeclaration.parse({})))).toEqual({ notApplicable: "the environment is not rewarded on tool outputs (no control_call in audit.yaml)" });
  });
});
