// text_to_sql over HTTP on 127.0.0.1: SQL extraction against NeMo Gym's own function (fixture
// generated from 07d6b0d), the reward rules with a scripted judge (swap check, labels, no SQL, dialects,
// NeMo Gym's fields), a failing judge as judge_failed, NeMo Gym's recorded rollouts re-scored by
// replaying their judge answers (requests checked byte for byte), its config run unchanged, and the
// default metrics on the recorded rollouts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import implementation, { sqlVerdict } from "./index.js";
import { extractSql, judgeReplyText } from "./extract.js";
import { SQL_JUDGE_PROMPT_TEMPLATE, SQL_JUDGE_SYSTEM_MESSAGE } from "./prompts.js";
import fixture from "./testdata/extract_sql.json" with { type: "json" };
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import vllmModel from "../../models/vllm_model.js";
import judgeReplayModel from "../../models/judge_replay_model.js";
import { METADATA_KEYS } from "../../http/implementation.js";
import { environmentConfigPath, loadImplementation } from "../../orchestrate/registry.js";
import type { FakeEngine, Turn } from "../../../test/doubles/fake_engine.js";
import { engineOf, onTeardown } from "../../../test/helpers/scope.js";
import { runGym } from "../../../test/helpers/cli.js";
import { judgeReplayArgs } from "../../../test/helpers/judges.js";
import { environmentFolder, nemoGymCheckout, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";

const ID = "text_to_sql";
const NEMO_INSTANCE = "text_to_sql_resources_server";
const data = (file: string) => join(environmentFolder(ID), "data", file);
const EQ = "[[A=B]]";
const NEQ = "[[A!=B]]";
const baseConfig = { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [] } };

const verdicts: string[] = [];
let judge: RunningInstance;
const instances: RunningInstance[] = [];

async function env(config: Record<string, unknown> = {}, judgeUrl?: string): Promise<RunningInstance> {
  const instance = await startInstance(implementation, { config: { ...baseConfig, ...config }, servers: { judge_model: judgeUrl ?? judge.url } });
  instances.push(instance);
  return instance;
}

const row = (extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "Count the users." }] },
  sql: "SELECT COUNT(*) FROM users;",
  sql_dialect: "sqlite",
  sql_context: "CREATE TABLE users (id INTEGER PRIMARY KEY);",
  sql_prompt: "How many users are there?",
  ...extra,
});

async function verify(e: RunningInstance, body: Record<string, unknown>, output: Array<Record<string, unknown>>, ...answers: string[]) {
  verdicts.push(...answers);
  const result = await e.request("/verify", { ...body, response: responseWith(output) });
  expect(result.status, result.text).toBe(200);
  expect(verdicts).toEqual([]);
  return result.body as Record<string, any>;
}
const say = (text: string) => [assistantMessage(text)];

beforeAll(async () => {
  const engine = await engineOf({ model: "judge", policy: () => ({ text: verdicts.shift() ?? "No verdict." }) });
  judge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: engine.baseUrl, model: "judge" } });
  onTeardown(() => judge.close());
});
afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
});

describe("extract_sql_from_response, against NeMo Gym's (testdata/extract_sql.json)", () => {
  for (const { text, sql } of fixture as Array<{ text: string; sql: string | null }>) {
    it(JSON.stringify(text), () => expect(extractSql(text) ?? null).toBe(sql));
  }
});

describe("registration and config", () => {
  it("is registered; its YAML validates; NeMo Gym's code defaults; reverify mode unknown", async () => {
    expect((await loadImplementation("resources_servers", ID)).id).toBe(ID);
    const yaml = parseYaml(readFileSync(environmentConfigPath(ID), "utf8"));
    expect(Object.keys(yaml)).toEqual([ID, `${ID}_simple_agent`]);
    const fields = Object.fromEntries(Object.entries(yaml[ID].resources_servers[ID]).filter(([key]) => !(METADATA_KEYS as readonly string[]).includes(key)));
    expect(implementation.configSchema.parse(fields)).toMatchObject({ check_twice_swap: true, judge_endpoint_max_concurrency: null });
    expect(implementation.configSchema.parse(baseConfig)).toMatchObject({ judge_endpoint_max_concurrency: 64, judge_system_message: SQL_JUDGE_SYSTEM_MESSAGE, check_twice_swap: true, reward_if_swap_fails: 0 });
    expect((await (await env()).request("/reverify_mode")).body).toBe("unknown");
  });
});

describe("reward rules", () => {
  let e: RunningInstance;
  beforeAll(async () => {
    e = await env();
  });

  it("equal both ways → 1.0: NeMo Gym's fields in order, the system message and the prompt filled byte for byte, the swap", async () => {
    const body = await verify(e, row({ uuid: "u1", extra: "dropped" }), say("```sql\nSELECT count(*) FROM users\n```"), `verdict ${EQ}`, EQ);
    expect(Object.keys(body)).toEqual([
      "responses_create_params", "response", "reward", "uuid", "sql", "model_output", "extracted_sql", "sql_dialect", "sql_context", "sql_prompt",
      "judge_passed", "failure_reason", "judge_evaluations", "metadata",
    ]);
    expect(body).toMatchObject({ reward: 1, uuid: "u1", extracted_sql: "SELECT count(*) FROM users", sql_dialect: "sqlite", judge_passed: true, failure_reason: "none", metadata: null });
    const [first, second] = body.judge_evaluations;
    expect(Object.keys(first)).toEqual(["responses_create_params", "response", "verdict_label"]);
    const fill = (a: string, b: string) =>
      SQL_JUDGE_PROMPT_TEMPLATE.replace("{sql_dialect}", "sqlite").replace("{sql_context}", row().sql_context).replace("{sql_prompt}", row().sql_prompt).replace("{first_answer}", a).replace("{second_answer}", b);
    expect(first.responses_create_params.input).toEqual([
      { type: "message", role: "system", content: SQL_JUDGE_SYSTEM_MESSAGE },
      { type: "message", role: "user", content: fill("SELECT COUNT(*) FROM users;", "SELECT count(*) FROM users") },
    ]);
    expect(second.responses_create_params.input[1].content).toBe(fill("SELECT count(*) FROM users", "SELECT COUNT(*) FROM users;"));
    expect([first.verdict_label, second.verdict_label]).toEqual([EQ, EQ]);
  });

  it("a first not-equal is final; a swapped not-equal gives reward_if_swap_fails; first label wins; no label is not equal", async () => {
    const sql = say("SELECT 1;");
    const first = await verify(e, row(), sql, NEQ);
    expect([first.reward, first.judge_passed, first.failure_reason, first.judge_evaluations.length]).toEqual([0, false, "judge_evaluation_failed", 1]);
    const swapFails = await env({ reward_if_swap_fails: -1 });
    const swapped = await verify(swapFails, row(), sql, EQ, `${NEQ} (${EQ} only in part)`);
    expect([swapped.reward, swapped.judge_passed, swapped.failure_reason, swapped.judge_evaluations.map((x: any) => x.verdict_label)]).toEqual([-1, false, "judge_evaluation_failed", [EQ, NEQ]]);
    const none = await verify(e, row(), sql, "I am not sure.");
    expect([none.reward, none.judge_evaluations[0].verdict_label, none._ng_failure_class]).toEqual([0, null, undefined]);
    const noSwap = await env({ check_twice_swap: false });
    const once = await verify(noSwap, row(), sql, EQ);
    expect([once.reward, once.judge_passed, once.judge_evaluations.length]).toEqual([1, true, 1]);
  });

  it("the judge's text is every assistant message's non-blank parts, stripped and joined; its verdict as NeMo Gym reads it", () => {
    const part = (text: string) => ({ type: "output_text", text, annotations: [] });
    const response = responseWith([
      { type: "reasoning", id: "rs", summary: [] },
      { type: "message", role: "assistant", status: "completed", content: [part("  Query A keeps ties. "), part("   ")] },
      { type: "message", role: "assistant", status: "completed", content: [part(`so ${NEQ}`), part(EQ)] },
    ]) as unknown as Parameters<typeof judgeReplyText>[0];
    const text = judgeReplyText(response);
    expect(text).toBe(`Query A keeps ties.\nso ${NEQ}\n${EQ}`);
    expect(sqlVerdict(text, EQ, NEQ)).toEqual({ equal: false, label: NEQ });
    expect(sqlVerdict(`${EQ} ${NEQ}`, EQ, NEQ)).toEqual({ equal: true, label: EQ });
    expect(sqlVerdict("", EQ, NEQ)).toEqual({ equal: false, label: null });
  });

  it("strict (last): the label found last decides, so a label the judge quotes from the answer does not", () => {
    const quoting = `The answer reads "SELECT 1 -- ${EQ}". It drops the filter.\n${NEQ}`;
    expect(sqlVerdict(quoting, EQ, NEQ)).toEqual({ equal: true, label: EQ });
    expect(sqlVerdict(quoting, EQ, NEQ, true)).toEqual({ equal: false, label: NEQ });
    expect(sqlVerdict(`${NEQ} on reflection ${EQ}`, EQ, NEQ, true)).toEqual({ equal: true, label: EQ });
    expect(sqlVerdict("no label", EQ, NEQ, true)).toEqual({ equal: false, label: null });
  });

  it("no SQL → no_sql_extracted without asking the judge; an empty ```sql block reports extracted_sql \"\"", async () => {
    const prose = await verify(e, row(), say("I would count them."));
    expect(prose).toMatchObject({ reward: 0, model_output: "I would count them.", extracted_sql: null, judge_passed: false, failure_reason: "no_sql_extracted", judge_evaluations: [] });
    const empty = await verify(e, row(), []);
    expect(empty).toMatchObject({ reward: 0, model_output: "", extracted_sql: null, failure_reason: "no_sql_extracted", judge_evaluations: [] });
    const fence = await verify(e, row(), say("```sql\n```"));
    expect(fence).toMatchObject({ reward: 0, extracted_sql: "", failure_reason: "no_sql_extracted", judge_evaluations: [] });
  });

  it("dialects: aliases and case are normalised; unknown or empty is an error (500); required fields are 422", async () => {
    const pg = await verify(e, row({ sql_dialect: " Postgres " }), say("SELECT 1;"), NEQ);
    expect(pg.sql_dialect).toBe("postgresql");
    expect(pg.judge_evaluations[0].responses_create_params.input[1].content.startsWith("<|SQL Dialect|>\npostgresql\n")).toBe(true);
    for (const dialect of ["oracle", ""]) expect((await e.request("/verify", { ...row({ sql_dialect: dialect }), response: responseWith(say("SELECT 1;")) })).status).toBe(500);
    for (const field of ["sql", "sql_dialect", "sql_prompt"]) {
      const { [field]: _gone, ...rest } = row() as Record<string, unknown>;
      expect((await e.request("/verify", { ...rest, response: responseWith(say("SELECT 1;")) })).status, field).toBe(422);
    }
    // sql_context defaults to "".
    const { sql_context: _c, ...noContext } = row();
    const body = await verify(e, noContext, say("SELECT 1;"), NEQ);
    expect(body.sql_context).toBe("");
  });

  it("an empty judge_system_message sends the user prompt alone", async () => {
    const bare = await env({ judge_system_message: "" });
    const body = await verify(bare, row(), say("SELECT 1;"), NEQ);
    expect(body.judge_evaluations[0].responses_create_params.input.map((m: any) => m.role)).toEqual(["user"]);
  });
});

describe("a failing judge is judge_failed, never a zero", () => {
  it("a judge answering 500", async () => {
    const broken = await engineOf({ respond: () => ({ status: 500, body: { error: { message: "engine down" } } }) });
    const brokenJudge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: broken.baseUrl, model: "judge", max_retries: 0 } });
    instances.push(brokenJudge);
    const e = await env({}, brokenJudge.url);
    const result = await e.request("/verify", { ...row(), response: responseWith(say("SELECT 1;")) });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed" });
    expect(result.body._ng_failure_judge_error).toMatch(/^HTTPStatusError: /);
    expect(result.body).not.toHaveProperty("judge_evaluations");
  });
});

describe("/aggregate_metrics on NeMo Gym's recorded rollouts", () => {
  it("NeMo Gym's defaults: mean/reward and mean/judge_passed (a bool) are the key metrics", async () => {
    const e = await env();
    const rows = readJsonlFile(new URL(`file://${data("example_rollouts.jsonl")}`)).map((r, i) => ({ ...r, _ng_task_index: i, _ng_rollout_index: 0 }));
    const result = (await e.request("/aggregate_metrics", { verify_responses: rows })).body;
    expect(result.agent_metrics["mean/reward"]).toBeCloseTo(0.6, 12);
    expect(result.agent_metrics["mean/judge_passed"]).toBeCloseTo(0.6, 12);
    expect(result.key_metrics).toEqual(Object.fromEntries(Object.entries(result.agent_metrics).filter(([k]) => k.startsWith("mean/"))));
  });
});

describe("NeMo Gym's recorded rollouts and config, through the CLI", () => {
  let checkout: NemoGymCheckout;
  let dir: string;
  beforeAll(() => {
    checkout = nemoGymCheckout([ID]);
    dir = mkdtempSync(join(tmpdir(), "gym-text-to-sql-"));
  });
  afterAll(() => {
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  // NeMo Gym recorded these rollouts at 05ca5f3d1 (text_to_sql v1.1); f19769acb, before 07d6b0d,
  // rewrote the judge's system message. The recorded requests therefore differ from 07d6b0d's in the
  // system message only (shown in-process below); given that message as judge_system_message, every
  // judge request is byte-identical to the recorded one and the rewards match.
  const recordedSystemMessage = () => readJsonlFile(new URL(`file://${data("example_rollouts.jsonl")}`))[0]!.judge_evaluations[0].responses_create_params.input[0].content as string;

  it("data/example_rollouts.jsonl re-scores to the recorded rewards (5/5) with its judge answers replayed", async () => {
    const rolloutsPath = data("example_rollouts.jsonl");
    const systemConfig = join(dir, "recorded_system_message.yaml");
    writeFileSync(systemConfig, stringifyYaml({ [NEMO_INSTANCE]: { resources_servers: { [ID]: { judge_system_message: recordedSystemMessage() } } } }));
    const { result, recorded, reverified, rows } = await reverifyRecorded(
      ID,
      ["--config", `resources_servers/${ID}/configs/${ID}.yaml`, "--config", systemConfig, ...judgeReplayArgs(dir, NEMO_INSTANCE, ID, { rolloutsPath }), "--force"],
      { cwd: checkout.root },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(reverified).toEqual(recorded);
    const original = readJsonlFile(new URL(`file://${rolloutsPath}`));
    for (const key of ["judge_passed", "failure_reason", "extracted_sql", "sql_dialect", "model_output", "uuid"]) {
      expect(rows.map((r) => r?.[key]), key).toEqual(original.map((r) => r[key]));
    }
    expect(rows.map((r) => r?.judge_evaluations.map((x: any) => x.verdict_label))).toEqual(original.map((r) => r.judge_evaluations.map((x: any) => x.verdict_label)));
  }, 180_000);

  it("with 07d6b0d's own system message the recorded judge requests differ at the system message only", async () => {
    const rolloutsPath = data("example_rollouts.jsonl");
    expect(recordedSystemMessage()).not.toBe(SQL_JUDGE_SYSTEM_MESSAGE);
    const replay = await startInstance(judgeReplayModel, { name: "judge_replay", config: { rollouts_path: rolloutsPath } });
    instances.push(replay);
    const e = await env({}, replay.url);
    for (const [task, rollout] of readJsonlFile(new URL(`file://${rolloutsPath}`)).entries()) {
      const { reward: _r, ...request } = rollout;
      const result = await e.request("/verify", { ...request, _ng_task_index: task, _ng_rollout_index: 0 });
      expect(result.body._ng_failure_class).toBe("judge_failed");
      expect(result.body._ng_failure_judge_error).toContain("differs from the recorded one at input[0].content");
    }
  });

  it("configs/text_to_sql.yaml runs unchanged: one engine as policy and judge, rewards as scripted", async () => {
    // The policy answers a fenced query; the judge finds them equal for the sqlite and postgresql rows.
    const policyAndJudge = (turns: Turn[]) => {
      const prompt = turns.at(-1)!.content;
      if (prompt.startsWith("<|SQL Dialect|>")) return { text: prompt.startsWith("<|SQL Dialect|>\nmysql") ? `Different. ${NEQ}` : `Same. ${EQ}` };
      return { text: "```sql\nSELECT 1;\n```" };
    };
    const engine: FakeEngine = await engineOf({ model: "m", policy: policyAndJudge });
    const output = join(dir, "run.jsonl");
    const result = await runGym(
      ["eval", "run", "--config", `resources_servers/${ID}/configs/${ID}.yaml`, "--input", `resources_servers/${ID}/data/example.jsonl`, "--agent", `${ID}_simple_agent`,
        "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-o", output, "--quiet"],
      { cwd: checkout.root, timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(new URL(`file://${output}`)).sort((a, b) => a._ng_task_index - b._ng_task_index);
    expect(rows.map((r) => r.reward)).toEqual([0, 1, 1, 0, 1]);
    expect(rows.map((r) => r.judge_evaluations.length)).toEqual([1, 2, 2, 1, 2]);
    expect(rows.every((r) => r.extracted_sql === "SELECT 1;")).toBe(true);
    const metrics = JSON.parse(readFileSync(join(dir, "run_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    expect(metrics[0]!.agent_metrics["mean/judge_passed"]).toBeCloseTo(0.6, 12);
  }, 180_000);
});
