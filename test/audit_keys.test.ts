// The audit.yaml keys that point the audit at stand-in data (src/audit/floors.ts): `config`,
// `sqlite`, `gold_from`, `row_indices`. A misspelt key names itself and suggests the right one; a
// config field the environment does not have is named with its nearest field; a gold from a side file
// is read by its template. The end-to-end use of each key is the gate (test/audit_gate.test.ts:
// evalplus, code_fim, bird_sql, spider2_lite); these are the unit checks, no servers but one audit
// that stops before starting any.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadDeclaration } from "../src/audit/floors.js";
import { PROBES } from "../src/audit/probes.js";
import { applyConfig, auditEnvironment, goldFromFile } from "../src/audit/run.js";
import { auditResolver } from "../src/cli/env_audit.js";
import { closeDispatcher } from "../src/http/client.js";
import type { InstanceSpec } from "../src/orchestrate/start.js";
import { REPO_ROOT } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "gym-audit-keys-"));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await closeDispatcher();
});

function declaration(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("audit.yaml keys for stand-in data", () => {
  it("names a misspelt key and suggests the right one, at the top level and inside a key", () => {
    const top = declaration("top.yaml", "confg:\n  data_dir: x\n");
    expect(() => loadDeclaration(top)).toThrow(`${top}: confg: not an audit.yaml key (did you mean config?)`);
    const nested = declaration("nested.yaml", "gold_from: {file: f.jsonl, row_kye: id, file_key: id, template: '{x}'}\n");
    expect(() => loadDeclaration(nested)).toThrow(`${nested}: gold_from.row_kye: not an audit.yaml key (did you mean gold_from.row_key?)`);
    const sqlite = declaration("sqlite.yaml", "sqlite:\n  a/b.sqlite: {sq: schema.sql}\n");
    expect(() => loadDeclaration(sqlite)).toThrow(/sqlite\.a\/b\.sqlite\.sq: not an audit.yaml key \(did you mean sqlite\.a\/b\.sqlite\.sql\?\)/);
    const cohort = declaration("cohort.yaml", "cohrt: 4\nreward_range: {min: 1, max: 5}\n");
    expect(() => loadDeclaration(cohort)).toThrow(`${cohort}: cohrt: not an audit.yaml key (did you mean cohort?)`);
    const range = declaration("range.yaml", "reward_range: {min: 1, maks: 5}\n");
    expect(() => loadDeclaration(range)).toThrow(`${range}: reward_range.maks: not an audit.yaml key (did you mean reward_range.max?)`);
    // a far-fetched key gets no suggestion, but the list of keys
    const far = declaration("far.yaml", "zzzzzzzz: 1\n");
    expect(() => loadDeclaration(far)).toThrow(/zzzzzzzz: not an audit.yaml key; keys: answer, gold, .*config, sqlite, gold_from/);
  });

  it("reads the new keys with their defaults", () => {
    const path = declaration(
      "ok.yaml",
      ["config: {data_dir: '{here}/testdata', num_processes: 2}", "sqlite: {db/x.sqlite: {row_field: sql_context}}", "row_indices: [0, 3]"].join("\n"),
    );
    const decl = loadDeclaration(path);
    expect(decl.config).toEqual({ data_dir: "{here}/testdata", num_processes: 2 });
    expect(decl.sqlite).toEqual({ "db/x.sqlite": { row_field: "sql_context" } });
    expect(decl.row_indices).toEqual([0, 3]);
    expect(loadDeclaration(declaration("empty.yaml", "{}\n"))).toMatchObject({ config: {}, sqlite: {} });
  });

  it("overrides the environment's config fields with {here} and {work} filled in, and names a field it does not have", () => {
    const env = (): InstanceSpec => ({ name: "fim", type: "resources_servers", implementation: "code_fim", fields: { data_dir: null, timeout: 3, num_processes: 8 } });
    const ok = env();
    applyConfig(ok, { data_dir: "{here}/testdata", num_processes: 2, timeout: ["{work}/a", { b: "{work}" }] }, { here: "/h", work: "/w" }, "a.yaml");
    expect(ok.fields).toEqual({ data_dir: "/h/testdata", timeout: ["/w/a", { b: "/w" }], num_processes: 2 });
    expect(() => applyConfig(env(), { data_dri: "x" }, { here: "/h", work: "/w" }, "a.yaml")).toThrow(
      "a.yaml: config.data_dri: code_fim has no config field data_dri (did you mean config.data_dir?); its fields: data_dir, timeout, num_processes",
    );
  });

  it("takes the gold from a side file's matching line by the template; an empty one is no gold; a missing field is named", () => {
    const lines = [
      { task_id: "T/0", prompt: "def f():\n", body: "    return 1\n" },
      { task_id: "T/1", prompt: "def g():\n", body: "" },
    ];
    writeFileSync(join(dir, "tasks.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n"));
    const gold = goldFromFile({ file: "tasks.jsonl", row_key: "verifier_metadata.task_id", file_key: "task_id", template: "{prompt}{body}" }, dir, "a.yaml");
    expect(gold({ verifier_metadata: { task_id: "T/0" } })).toBe("def f():\n    return 1\n");
    expect(gold({ verifier_metadata: { task_id: "T/9" } })).toBeUndefined();
    expect(goldFromFile({ file: "tasks.jsonl", row_key: "verifier_metadata.task_id", file_key: "task_id", template: "{body}" }, dir, "a.yaml")({ verifier_metadata: { task_id: "T/1" } })).toBeUndefined();
    const missing = goldFromFile({ file: "tasks.jsonl", row_key: "id", file_key: "task_id", template: "{solution}" }, dir, "a.yaml");
    expect(() => missing({ id: "T/0" })).toThrow(`a.yaml: gold_from.template: ${join(dir, "tasks.jsonl")} has no field solution (its fields: task_id, prompt, body)`);
    expect(() => goldFromFile({ file: "nope.jsonl", row_key: "id", file_key: "task_id", template: "{x}" }, dir, "a.yaml")).toThrow(`a.yaml: gold_from.file: no file ${join(dir, "nope.jsonl")}`);
  });

  it("refuses row_indices past the input's rows and a config field the environment lacks, before any server starts", async () => {
    const config = join(REPO_ROOT, "test", "fixtures", "audit", "weak_env.yaml");
    const probes = PROBES.filter((p) => p.name === "control.gold");
    const run = (decl: string) => auditEnvironment({ id: "sound", configPaths: [config], declarationPath: decl }, { rows: 2, probes, resolve: auditResolver() });
    const far = declaration("far_rows.yaml", "row_indices: [0, 99]\n");
    expect((await run(far)).error).toMatch(new RegExp(`^${far}: row_indices: no row 99 \\(the input has \\d+ rows\\)$`));
    const field = declaration("field.yaml", "config: {weaknes: none}\n");
    expect((await run(field)).error).toMatch(new RegExp(`^${field}: config\\.weaknes: audit_weak_env has no config field weaknes \\(did you mean config\\.weakness\\?\\)`));
  });
});
