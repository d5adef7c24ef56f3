// workplace_assistant: the reward rules over HTTP (traps included), the tool route (per-session sandbox,
// Python-style errors), NeMo Gym's five recorded rollouts re-verified through `gym eval reverify`
// (against the Hugging Face rows when WORKPLACE_ASSISTANT_ROWS names them; always against rows of the
// same shape written in testdata/), and NeMo Gym's config run unchanged with metrics checked.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import workplace from "./index.js";
import { CookieJar } from "../../http/cookies.js";
import { assistantMessage, functionCall, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine, type Policy } from "../../../test/doubles/fake_engine.js";
import { runGym, readJsonlFile } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { recordedInputsFile } from "../../../test/helpers/recorded_inputs_by_prompt.js";
import { lastUserText } from "../../../test/helpers/recorded_policy.js";

type Row = Record<string, any>;
const EXAMPLES = readJsonlFile(fileURLToPath(new URL("./data/example.jsonl", import.meta.url))) as Row[];

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(workplace);
});
afterAll(() => env.close());

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: JSON.stringify(args) });

async function reward(row: Row, calls: Array<{ name: string; arguments: string }>): Promise<number> {
  const output = [...calls.map((c, i) => functionCall(c.name, c.arguments, `call_${i}`)), assistantMessage("Done.")];
  const result = await env.request("/verify", { ...row, response: responseWith(output) });
  expect(result.status, result.text).toBe(200);
  expect(Object.keys(result.body).sort()).toEqual(["response", "responses_create_params", "reward"]);
  return result.body.reward;
}

describe("reward rules (plain HTTP)", () => {
  const reply = EXAMPLES[0]!; // reply to email 00000057
  const body = "Thanks for the update - I will get back to you tomorrow.";

  it("the ground-truth calls → 1; with read-only lookups before them → 1; the body in other case → 1", async () => {
    expect(await reward(reply, reply.ground_truth)).toBe(1);
    expect(await reward(reply, [call("email_search_emails", { query: "carlos" }), call("company_directory_find_email_address", { name: "carlos" }), ...reply.ground_truth])).toBe(1);
    expect(await reward(reply, [call("email_reply_email", { email_id: "00000057", body: body.toUpperCase() })])).toBe(1);
  });
  it("traps: only lookups → 0; another body → 0; the reply sent twice → 0 (and the same email sent by hand → 1: state, not calls, is compared)", async () => {
    expect(await reward(reply, [call("email_search_emails", { query: "carlos" })])).toBe(0);
    expect(await reward(reply, [call("email_reply_email", { email_id: "00000057", body: "Thanks." })])).toBe(0);
    expect(await reward(reply, [...reply.ground_truth, ...reply.ground_truth])).toBe(0);
    // Sending the same row by hand leaves the same table: the reward compares state, not the call.
    expect(await reward(reply, [call("email_send_email", { recipient: "carlos.rodriguez@atlas.com", subject: "RE: Task Update on Develop prototype for report generation", body })])).toBe(1);
  });
  it("traps: a call with an unknown argument or tool, or arguments that are not JSON, changes nothing → 0", async () => {
    expect(await reward(reply, [call("email_reply_email", { email_id: "00000057", body, cc: "x@y.z" })])).toBe(0);
    expect(await reward(reply, [{ name: "email_reply", arguments: JSON.stringify({ email_id: "00000057", body }) }])).toBe(0);
    expect(await reward(reply, [{ name: "email_reply_email", arguments: "{email_id: 00000057}" }])).toBe(0);
  });
  it("status is compared case-sensitively; a customer id given as a number matches nothing", async () => {
    const lost = EXAMPLES[4]!;
    expect(await reward(lost, lost.ground_truth)).toBe(1);
    const lower = lost.ground_truth.map((a: Row) => ({ ...a, arguments: a.arguments.replace('"Lost"', '"lost"') }));
    expect(await reward(lost, lower)).toBe(0);
    const rename = EXAMPLES[1]!;
    expect(await reward(rename, [call("calendar_update_event", { event_id: 252, field: "event_name", new_value: "Risk Management Forum" })])).toBe(0);
  });
  it("order matters only where the tables differ: deletions in any order → 1, one missing → 0", async () => {
    const del = EXAMPLES[3]!;
    expect(await reward(del, [...del.ground_truth].reverse())).toBe(1);
    expect(await reward(del, del.ground_truth.slice(1))).toBe(0);
  });
  it("id is read as pydantic reads an int: \"7\" passes, 1.5 → 422", async () => {
    expect(await reward({ ...EXAMPLES[0], id: "7" }, EXAMPLES[0]!.ground_truth)).toBe(1);
    expect((await env.request("/verify", { ...EXAMPLES[0], id: 1.5, response: responseWith([assistantMessage("x")]) })).status).toBe(422);
  });
  it("a row without ground_truth → 422", async () => {
    const { ground_truth: _omit, ...bare } = EXAMPLES[0]!;
    void _omit;
    expect((await env.request("/verify", { ...bare, response: responseWith([assistantMessage("x")]) })).status).toBe(422);
  });
});

describe("the tool route", () => {
  it("a seeded session calls tools by name; writes stay in that session; errors come back as text", async () => {
    const jar = new CookieJar();
    expect((await env.request("/seed_session", EXAMPLES[0], jar)).status).toBe(200);
    const found = await env.request("/email_search_emails", { query: "kofi", page: 1, page_size: 1, date_min: null }, jar);
    expect(found.status).toBe(200);
    expect(JSON.parse(found.text).output.pagination).toMatchObject({ page: 1, page_size: 1 });
    const deleted = await env.request("/email_delete_email", { email_id: "00000259" }, jar);
    expect(JSON.parse(deleted.text)).toEqual({ output: "Email deleted successfully." });
    expect(JSON.parse((await env.request("/email_delete_email", { email_id: "00000259" }, jar)).text)).toEqual({ output: "Email not found." });
    const other = new CookieJar();
    await env.request("/seed_session", EXAMPLES[0], other);
    expect(JSON.parse((await env.request("/email_delete_email", { email_id: "00000259" }, other)).text)).toEqual({ output: "Email deleted successfully." });
    expect(JSON.parse((await env.request("/email_send_email", { recipient: "a@b.c", subject: "s", body: "b", cc: "x" }, jar)).text)).toEqual({
      output: "Error executing tool 'email_send_email': EmailTool.send_email() got an unexpected keyword argument 'cc'",
    });
    expect(JSON.parse((await env.request("/no_such_tool", {}, jar)).text)).toEqual({ output: "Error executing tool 'no_such_tool': 'no_such_tool'" });
  });
  it("without /seed_session the route refuses", async () => {
    const reply = await env.request("/email_search_emails", { query: "kofi" }, new CookieJar());
    expect(JSON.parse(reply.text).detail).toMatch(/Session not initialized/);
  });
});

describe("NeMo Gym's recordings and config (07d6b0d)", () => {
  let dir: string;
  let checkout: NemoGymCheckout;
  let engine: FakeEngine;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-workplace-"));
    checkout = nemoGymCheckout(["workplace_assistant"]);
    engine = await startFakeEngine({ policy: groundTruthPolicy(EXAMPLES) });
  });
  afterAll(async () => {
    await engine.close();
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  // The recorded rollouts are prompts of NeMo Gym's Hugging Face dataset (nvidia/Nemotron-RL-agent-workplace_assistant),
  // not of example.jsonl: their ground truth lives there.
  const hfRows = process.env.WORKPLACE_ASSISTANT_ROWS;
  it.skipIf(!hfRows)("with the Hugging Face rows (WORKPLACE_ASSISTANT_ROWS=train.jsonl or validation.jsonl): the five recorded rollouts re-verify to their rewards", async () => {
    const inputs = recordedInputsFile("workplace_assistant", dir, { examplesPath: hfRows! });
    const { result, recorded, reverified } = await reverifyRecorded("workplace_assistant", ["--resources-server", "workplace_assistant", "--inputs", inputs, "--force"]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(recorded);
  }, 200_000);

  it("with rows of the same shape written here (testdata/recorded_prompt_rows.jsonl, rewards checked with NeMo Gym's Python): the five recorded rollouts re-verify to their rewards", async () => {
    const examplesPath = fileURLToPath(new URL("./testdata/recorded_prompt_rows.jsonl", import.meta.url));
    const inputs = recordedInputsFile("workplace_assistant", dir, { examplesPath });
    const { result, recorded, reverified } = await reverifyRecorded("workplace_assistant", ["--resources-server", "workplace_assistant", "--inputs", inputs, "--force"]);
    expect(result.code, result.stderr).toBe(0);
    expect(recorded).toEqual([0, 1, 1, 1, 1]);
    expect(reverified).toEqual(recorded);
  }, 200_000);

  it("NeMo Gym's config runs unchanged: its example rows, the engine making each row's ground-truth calls, every row back with reward 1, default metrics", async () => {
    const output = join(dir, "run.jsonl");
    const result = await runGym(
      ["eval", "run", "--config", "resources_servers/workplace_assistant/configs/workplace_assistant.yaml", "--agent", "workplace_assistant_simple_agent", "--input", "resources_servers/workplace_assistant/data/example.jsonl", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", output, "--quiet"],
      { cwd: checkout.root, timeoutMs: 180_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(output).sort((a, b) => a._ng_task_index - b._ng_task_index);
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 1, 1, 1]);
    // The tool replies the model saw came from the sandbox (the reply, update and deletion succeeded).
    const outputs = rows.flatMap((r) => r.response.output.filter((o: Row) => o.type === "function_call_output").map((o: Row) => JSON.parse(o.output).output));
    expect(outputs).toContain("Email replied successfully.");
    expect(outputs.filter((o) => o === "Customer deleted successfully.")).toHaveLength(4);
    const [metrics] = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    expect(metrics!.agent_metrics).toMatchObject({ "mean/reward": 1, "max/reward": 1, "min/reward": 1, "median/reward": 1, "std/reward": 0 });
  }, 200_000);
});

/** A model that makes the row's ground-truth calls in its first turn, then says it is done. */
function groundTruthPolicy(rows: Row[]): Policy {
  const byPrompt = new Map(rows.map((r) => [lastUserText(r.responses_create_params.input), r.ground_truth as Array<{ name: string; arguments: string }>]));
  return (turns) => {
    const lastUser = turns.findLastIndex((t) => t.role === "user");
    const calls = byPrompt.get(turns[lastUser]?.content ?? "");
    const called = turns.slice(lastUser + 1).some((t) => t.role === "tool");
    if (!calls || called) return { text: "Done." };
    return { toolCalls: calls.map((c) => ({ name: c.name, arguments: c.arguments })) };
  };
}
