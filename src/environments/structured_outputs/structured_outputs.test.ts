// structured_outputs: the reward rules on our own cases (every format, tool calls, the strict
// schema, XML/CSV coercion, traps), NeMo Gym's recorded rollouts re-verified through
// `gym eval reverify --inputs`, and NeMo Gym's four configs run unchanged through `gym eval run`
// (every server real on 127.0.0.1; the engine double is the only stand-in).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine, type ToolSpec, type Turn } from "../../../test/doubles/fake_engine.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { assistantMessage, functionCall, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import structuredOutputs from "./index.js";
import { strictify } from "./schema.js";

const ID = "structured_outputs";
const HERE = import.meta.dirname;
const FIXTURE = join(HERE, "..", "..", "..", "test", "fixtures", "nemo_gym", "resources_servers", ID);
const readJsonl = (path: string) => readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, any>);

const PERSON = JSON.stringify({
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" }, tags: { type: "array", items: { type: "string" } }, member: { type: "boolean" } },
});
const ROWS = JSON.stringify({ type: "array", items: { type: "object", properties: { name: { type: "string" }, age: { type: "integer" }, score: { type: ["number", "null"] } } } });

describe("structured_outputs: strict schemas", () => {
  it("requires every property and forbids others, in nested dicts but not inside lists", () => {
    const schema = { type: "object", properties: { a: { type: "object", properties: { b: {} } } }, anyOf: [{ properties: { c: {} } }] } as Record<string, any>;
    strictify(schema);
    expect(schema.required).toEqual(["a"]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.a.required).toEqual(["b"]);
    expect(schema.anyOf[0].required).toBeUndefined();
  });
});

describe("structured_outputs: rewards through /verify", () => {
  let env: RunningInstance;
  let noCoerce: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(structuredOutputs);
    noCoerce = await startInstance(structuredOutputs, { name: "so_plain_xml", config: { xml_coerce_types: false } });
  });
  afterAll(async () => {
    await Promise.all([env.close(), noCoerce.close()]);
  });

  async function verify(instance: RunningInstance, body: Record<string, unknown>) {
    const result = await instance.request("/verify", { responses_create_params: { input: [{ role: "user", content: "q" }] }, ...body });
    expect(result.status, result.text).toBe(200);
    return result.body as Record<string, any>;
  }
  const text = (schema_type: string, schema_str: string, answer: string, instance?: RunningInstance) =>
    verify(instance ?? env, { schema_type, schema_str, response: responseWith([assistantMessage(answer)]) });

  it("text answers in each format: valid ones 1, traps 0 with the reason", async () => {
    const cases: Array<[string, string, string, number, string | null]> = [
      ["json", PERSON, '{"name": "Ann", "age": 30, "tags": ["a"], "member": true}', 1, null],
      ["json", PERSON, '{"name": "Ann", "age": 30, "tags": ["a"]}', 0, "validation_error"], // strict: all required
      ["json", PERSON, '{"name": "Ann", "age": 30, "tags": [], "member": true, "extra": 1}', 0, "validation_error"],
      ["json", PERSON, '```json\n{"name": "Ann", "age": 30, "tags": [], "member": true}\n```', 0, "parse_error"], // fences are not stripped
      ["json", PERSON, '{"name": "Ann", "age": 30.0, "tags": [], "member": true}', 1, null], // 30.0 is an integer to jsonschema
      ["json", PERSON, '{"name": "Ann", "age": "30", "tags": [], "member": true}', 0, "validation_error"],
      ["yaml", PERSON, "name: Ann\nage: 30\ntags: [a, b]\nmember: yes\n", 1, null], // YAML 1.1: yes is true
      ["yaml", PERSON, "name: 2024-01-15\nage: 30\ntags: []\nmember: true\n", 0, "validation_error"], // a date, not a string
      ["yaml", PERSON, "name: Ann\nage: 1e3\ntags: []\nmember: true\n", 0, "validation_error"], // 1e3 is a string in PyYAML
      ["toml", PERSON, 'name = "Ann"\nage = 30\ntags = ["a"]\nmember = false\n', 1, null],
      ["toml", PERSON, 'name = "Ann"\nage = \n', 0, "parse_error"],
      ["xml", JSON.stringify({ type: "object", properties: { person: JSON.parse(PERSON) } }), "<person><name>Ann</name><age>30</age><tags><string>a</string><string>b</string></tags><member>1</member></person>", 1, null],
      ["xml", JSON.stringify({ type: "object", properties: { person: JSON.parse(PERSON) } }), "<person><name>Ann</name><age>thirty</age><tags/><member>true</member></person>", 0, "validation_error"],
      ["xml", PERSON, "<person><name>Ann</person>", 0, "parse_error"],
      ["csv", ROWS, "name,age,score\nAnn,30,1.5\nBob,41,\n", 1, null], // an empty cell is null where null is allowed
      ["csv", ROWS, "name,age,score\nAnn,x,1.5\n", 0, "validation_error"],
      ["csv", ROWS, "name,age,score\nAnn,30,1.5,extra\n", 0, "validation_error"], // the rest key is an extra property
      ["json", PERSON, "   ", 0, "empty_response"],
      ["json", "{not json", "{}", 0, "schema_error"],
    ];
    for (const [type, schema, answer, reward, error] of cases) {
      const result = await text(type, schema, answer);
      expect([result.reward, result.error_type], `${type}: ${answer}`).toEqual([reward, error]);
    }
    // Without XML coercion every leaf stays a string: the integer age fails.
    const plain = await text("xml", JSON.stringify({ type: "object", properties: { p: { type: "object", properties: { age: { type: "integer" } } } } }), "<p><age>3</age></p>", noCoerce);
    expect([plain.reward, plain.error_type]).toEqual([0, "validation_error"]);
  });

  it("tool-call answers: the one call's arguments (or its payload key) against the schema", async () => {
    const call = (args: string | Record<string, unknown>, name = "submit") => functionCall(name, args);
    const base = { schema_str: PERSON, response_mode: "tool_call", tool_name: "submit" };
    const good = { name: "Ann", age: 3, tags: [], member: false };
    const cases: Array<[Record<string, unknown>, Array<Record<string, unknown>>, number, string | null]> = [
      [base, [call(JSON.stringify(good))], 1, null],
      [{ ...base, tool_payload_key: "data" }, [call(JSON.stringify({ data: good }))], 1, null],
      [{ ...base, tool_payload_key: "data" }, [call(JSON.stringify(good))], 0, "missing_tool_payload_key"],
      [base, [call(JSON.stringify(good), "other")], 0, "wrong_tool_name"],
      [base, [call(JSON.stringify(good)), call(JSON.stringify(good))], 0, "multiple_tool_calls"],
      [base, [assistantMessage(JSON.stringify(good))], 0, "missing_tool_call"],
      [base, [call("{bad")], 0, "tool_arguments_parse_error"],
      [base, [call(JSON.stringify({ ...good, age: "3" }))], 0, "validation_error"],
    ];
    for (const [fields, output, reward, error] of cases) {
      const result = await verify(env, { ...fields, response: responseWith(output) });
      expect([result.reward, result.error_type], JSON.stringify(output)).toEqual([reward, error]);
    }
  });
});

describe("structured_outputs: NeMo Gym's recorded rollouts re-verify to the recorded rewards", () => {
  it("example_rollouts.jsonl joined with its input rows (recorded/README.md)", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded(ID, ["--resources-server", ID, "--inputs", join(FIXTURE, "recorded", "recorded_inputs.jsonl")]);
    expect(result.code, result.stderr).toBe(0);
    expect(recorded).toEqual([0, 0, 1, 0, 0]);
    expect(reverified).toEqual(recorded);
    // The four zeros: answers wrapped in a ```json fence, which json.loads refuses.
    expect(rows.map((r) => r?.error_type ?? null)).toEqual(["parse_error", "parse_error", null, "parse_error", "parse_error"]);
  }, 200_000);
});

describe("structured_outputs: NeMo Gym's configs run unchanged", () => {
  let engine: FakeEngine;
  let checkout: NemoGymCheckout;
  let dir: string;
  let recordedInputs: string;
  // The model replays NeMo Gym's recorded answer to a recorded prompt; otherwise it calls the first
  // tool offered with empty arguments, or answers in prose.
  const recorded = readJsonl(join(HERE, "data", "example_rollouts.jsonl"));
  const answerOf = new Map(recorded.map((r) => [r.responses_create_params.input.filter((m: any) => m.role === "user").map((m: any) => m.content).join("\n"), r.response.output.find((o: any) => o.type === "message").content[0].text as string]));
  const policy = (turns: Turn[], tools: ToolSpec[]) => {
    const replay = answerOf.get(turns.filter((t) => t.role === "user").map((t) => t.content).join("\n"));
    if (replay !== undefined) return { text: replay };
    return tools.length > 0 ? { toolCalls: [{ name: tools[0]!.name, arguments: "{}" }] } : { text: "I cannot comply." };
  };
  beforeAll(async () => {
    engine = await startFakeEngine({ policy });
    checkout = nemoGymCheckout([ID]);
    dir = mkdtempSync(join(tmpdir(), "gym-structured-"));
    // The JSON-only configs predate the tool-call rows now in example.jsonl (which name the v4
    // agent): they run on the JSON rows NeMo Gym recorded them with, as plain input rows.
    recordedInputs = join(dir, "json_rows.jsonl");
    const rows = readJsonl(join(FIXTURE, "recorded", "recorded_inputs.jsonl")).map(({ _ng_task_index: _t, _ng_rollout_index: _r, ...row }) => JSON.stringify(row));
    writeFileSync(recordedInputs, rows.join("\n") + "\n");
  });
  afterAll(async () => {
    await engine.close();
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (config: string, input: string) => {
    input ||= recordedInputs;
    const output = join(dir, `${config}.jsonl`);
    const result = await runGym(
      ["eval", "run", "--config", `resources_servers/${ID}/configs/${config}.yaml`, "--input", input === recordedInputs ? input : `resources_servers/${ID}/data/${input}`, "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", output, "--quiet", ...(input === recordedInputs ? ["--agent", "structured_outputs_simple_agent"] : [])],
      { cwd: checkout.root, timeoutMs: 180_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonl(output).sort((a, b) => a._ng_task_index - b._ng_task_index);
    const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    return { rows, metrics: metrics[0]! };
  };

  // What each row scores with the engine's answers: the JSON configs replay NeMo Gym's recorded
  // answers (the recorded rewards come back), v3's text rows get prose (no format parses or
  // validates), v4's tool-call rows get an empty call to the first tool offered (mostly a distractor).
  const EXPECTED: Record<string, { input: string; outcomes: Array<[string, string, number, string | null]>; metrics: Record<string, number> }> = {
    structured_outputs_json: {
      input: "",
      outcomes: [["json", "text", 0, "parse_error"], ["json", "text", 0, "parse_error"], ["json", "text", 1, null], ["json", "text", 0, "parse_error"], ["json", "text", 0, "parse_error"]],
      metrics: { "mean/reward": 0.2, "mean/reward_json": 0.2, "mean/reward_response_mode_text": 0.2 },
    },
    structured_outputs_json_yaml_xml_v1: {
      input: "",
      outcomes: [["json", "text", 0, "parse_error"], ["json", "text", 0, "parse_error"], ["json", "text", 1, null], ["json", "text", 0, "parse_error"], ["json", "text", 0, "parse_error"]],
      metrics: { "mean/reward": 0.2, "mean/reward_json": 0.2, "mean/reward_response_mode_text": 0.2 },
    },
    structured_outputs_v3: {
      input: "structured_outputs_v3_example.jsonl",
      outcomes: [["toml", "text", 0, "parse_error"], ["csv", "text", 0, "validation_error"], ["csv", "text", 0, "validation_error"], ["yaml", "text", 0, "validation_error"], ["json", "text", 0, "parse_error"]],
      metrics: { "mean/reward_toml": 0, "mean/reward_csv": 0, "mean/reward_multistep_related": 0, "mean/reward_translation": 0, "mean/reward_repr_json": 0, "mean/num_turns": 3.6 },
    },
    structured_outputs_v4: {
      input: "structured_outputs_v4_example.jsonl",
      outcomes: [["json", "tool_call", 0, "wrong_tool_name"], ["json", "tool_call", 0, "missing_tool_payload_key"], ["json", "tool_call", 0, "wrong_tool_name"], ["json", "tool_call", 0, "wrong_tool_name"], ["json", "tool_call", 0, "wrong_tool_name"]],
      metrics: { "mean/reward_direct_tool_call": 0, "mean/reward_response_mode_tool_call": 0, "mean/reward_parallel_tool_calls_true": 0, "mean/reward_parallel_tool_calls_false": 0, "mean/reward_num_tools_16": 0, "mean/reward_has_distractors_true": 0, "mean/reward_tool_union_mode_direct": Number.NaN },
    },
  };

  for (const [config, { input, outcomes, metrics: expectedMetrics }] of Object.entries(EXPECTED)) {
    it(`${config}.yaml: every row back, scored, with NeMo Gym's metric keys`, async () => {
      const { rows, metrics } = await run(config, input);
      expect(rows.map((r) => [r.schema_type, r.response_mode, r.reward, r.error_type])).toEqual(outcomes);
      for (const [key, value] of Object.entries(expectedMetrics)) {
        if (Number.isNaN(value)) expect(metrics.agent_metrics[key], key).toBeUndefined();
        else expect(metrics.agent_metrics[key], key).toBe(value);
      }
      // Every mean is a key metric (NeMo Gym's default get_key_metrics); token means are the
      // collector's, not the environment's, and are left out of this check.
      const own = (keys: string[]) => keys.filter((k) => !k.endsWith("_tokens"));
      expect(own(Object.keys(metrics.key_metrics))).toEqual(own(Object.keys(metrics.agent_metrics).filter((k) => k.startsWith("mean/"))));
    }, 200_000);
  }
});
