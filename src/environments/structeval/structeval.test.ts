// structeval: the reward rules on our own cases, NeMo Gym's recorded rollouts re-verified through
// `gym eval reverify`, and NeMo Gym's own config run unchanged through `gym eval run` with the
// engine double replaying the recorded answers (every server real on 127.0.0.1).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import structeval from "./index.js";
import { extractCode } from "./extract.js";
import { pathExists, tokenizePath } from "./paths.js";

const ID = "structeval";
const HERE = import.meta.dirname;
const readJsonl = (path: string) => readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, any>);

describe("structeval: extraction and key paths", () => {
  it("takes a BEGIN_CODE block, a fence (the fence wins), or the whole text", () => {
    expect(extractCode("x <|BEGIN_CODE|>\n{\"a\": 1}\n<|END_CODE|> y", "json")).toBe('{"a": 1}');
    expect(extractCode("<|BEGIN_CODE|>a: 1", "yaml")).toBe("a: 1");
    expect(extractCode("Here:\n```json\n{\"a\": 1}\n```\nDone", "json")).toBe('{"a": 1}');
    expect(extractCode("<|BEGIN_CODE|>one<|END_CODE|>\n```\ntwo\n```", "json")).toBe("two");
    expect(extractCode("  plain text  ", "csv")).toBe("plain text");
    // Python's unicode_escape turns escapes into characters and UTF-8 bytes into Latin-1 characters.
    expect(extractCode('{"k": "caf\\u00e9"}', "json")).toBe('{"k": "café"}');
    expect(extractCode('{"k": "café"}', "json")).toBe('{"k": "cafÃ©"}');
    expect(extractCode("&lt;a&gt;1&lt;/a&gt;", "xml")).toBe("<a>1</a>");
  });

  it("walks dotted keys, indices, wildcards, backticks, @attributes and csv:: headers", () => {
    expect(tokenizePath("a.`b.c`[0].*.d")).toEqual(["a", "b.c", "[0]", "*", "d"]);
    const doc = { a: { "b.c": [{ x: [{ d: 1 }] }] }, item: { id: "7" } };
    expect(pathExists(doc, "a.`b.c`[0].x.*.d")).toBe(true);
    expect(pathExists(doc, "a.`b.c`[1]")).toBe(false);
    expect(pathExists(doc, "item.@id")).toBe(true);
    expect(pathExists(doc, "a.*")).toBe(false);
    expect(pathExists({ csv_headers: ["Name", "Age"], csv_rows: [] }, "csv::Age")).toBe(true);
    expect(pathExists({ csv_headers: ["Name"], csv_rows: [] }, "csv::Age")).toBe(false);
  });
});

describe("structeval: rewards through /verify", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(structeval);
  });
  afterAll(() => env.close());
  const callVerify = async (_env: RunningInstance, body: Record<string, unknown>) => {
    const result = await env.request("/verify", body);
    expect(result.status, result.text).toBe(200);
    return result.body as Record<string, any>;
  };

  const row = (output_type: string, paths: string[], text: string) => ({
    responses_create_params: { input: [{ role: "user", content: "q" }] },
    response: responseWith([assistantMessage(text)]),
    task_id: "t",
    task_name: `Text to ${output_type}`,
    input_type: "Text",
    output_type,
    raw_output_metric: paths,
  });

  it("scores render, key paths and the rounded reward; traps score less", async () => {
    const cases: Array<[ReturnType<typeof row>, number, number, number]> = [
      [row("JSON", ["a", "b.c"], '```json\n{"a": 1, "b": {"c": 2}}\n```'), 1, 1, 1],
      // Valid JSON with one of three paths: 0.2 + 0.8/3 = 0.4666… → 0.47.
      [row("JSON", ["a", "x", "y"], '{"a": 1}'), 0.47, 1, 1 / 3],
      // An empty object parses but is falsy in Python: render 0.
      [row("JSON", ["a"], "{}"), 0, 0, 0],
      // Not JSON at all.
      [row("JSON", ["a"], "{a: 1}"), 0, 0, 0],
      // YAML 1.1: `on` is a key True, not the string "on"; the path "on" is missing.
      [row("YAML", ["on", "b"], "on: 1\nb: 2\n"), 0.6, 1, 0.5],
      [row("CSV", ["csv::Name", "csv::Age"], "Name,Age\nAnn,30\n"), 1, 1, 1],
      // "@id" finds the attribute; "id" without "@" does not (the fallback only drops an "@").
      [row("XML", ["root.item.@id", "root.item.id"], '<root><item id="3">x</item></root>'), 0.6, 1, 0.5],
      [row("XML", ["root.item"], "<root><item>x</root>"), 0, 0, 0],
      [row("TOML", ["server.port"], "[server]\nport = 8080\n"), 1, 1, 1],
      [row("TOML", ["server.port"], "[server]\nport = \n"), 0, 0, 0],
    ];
    for (const [request, reward, render, keys] of cases) {
      const result = await callVerify(env, request);
      expect([result.reward, result.render_score, result.key_validation_score], JSON.stringify(request.raw_output_metric)).toEqual([reward, render, keys]);
    }
    const empty = await callVerify(env, row("JSON", ["a"], "   "));
    expect([empty.reward, empty.error_type]).toEqual([0, "empty_response"]);
  });
});

describe("structeval: NeMo Gym's recorded rollouts re-verify to the recorded rewards", () => {
  for (const file of ["example_rollouts.jsonl", "structeval_nonrenderable_example_rollouts.jsonl"]) {
    it(file, async () => {
      const rolloutsPath = join(HERE, "..", "..", "..", "test", "fixtures", "nemo_gym", "resources_servers", ID, "recorded", file);
      const { result, recorded, reverified, rows } = await reverifyRecorded(ID, ["--resources-server", ID], { rolloutsPath });
      expect(result.code, result.stderr).toBe(0);
      expect(reverified).toEqual(recorded);
      const expected = readJsonl(rolloutsPath);
      expect(rows.map((r) => [r?.render_score, r?.key_validation_score, r?.error_type ?? null])).toEqual(expected.map((r) => [r.render_score, r.key_validation_score, r.error_type]));
    }, 200_000);
  }
});

describe("structeval: NeMo Gym's config runs unchanged", () => {
  let engine: FakeEngine;
  let checkout: NemoGymCheckout;
  let dir: string;
  const recorded = recordedRollouts(ID);
  const promptOf = (input: any[]) => input.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : m.content.map((c: any) => c.text).join(""))).join("\n");
  const answerOf = new Map(recorded.map((r) => [promptOf(r.responses_create_params.input), r.response.output.find((o: any) => o.type === "message").content[0].text as string]));
  beforeAll(async () => {
    engine = await startFakeEngine({
      policy: (turns: Turn[]) => ({ text: answerOf.get(turns.filter((t) => t.role === "user").map((t) => t.content).join("\n")) ?? "no answer" }),
    });
    checkout = nemoGymCheckout([ID]);
    dir = mkdtempSync(join(tmpdir(), "gym-structeval-"));
  });
  afterAll(async () => {
    await engine.close();
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("structeval_nonrenderable.yaml: every row back, the recorded rewards, NeMo Gym's metrics", async () => {
    const output = join(dir, "out.jsonl");
    const result = await runGym(
      ["eval", "run", "--config", `resources_servers/${ID}/configs/structeval_nonrenderable.yaml`, "--input", `resources_servers/${ID}/data/example.jsonl`, "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", output, "--quiet"],
      { cwd: checkout.root, timeoutMs: 180_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonl(output).sort((a, b) => a._ng_task_index - b._ng_task_index);
    expect(rows).toHaveLength(5);
    const byTask = new Map(recorded.map((r) => [r._ng_task_index as number, r.reward as number]));
    expect(rows.map((r) => r.reward)).toEqual(rows.map((r) => byTask.get(r._ng_task_index)));
    const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    const theirs = JSON.parse(readFileSync(join(HERE, "..", "..", "..", "test", "fixtures", "nemo_gym", "resources_servers", ID, "recorded", "example_rollouts_aggregate_metrics.json"), "utf8"))[0];
    const own = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !/_tokens$/.test(k)));
    const ours = own(metrics[0]!.agent_metrics);
    expect(Object.keys(ours).sort()).toEqual(Object.keys(own(theirs.agent_metrics)).sort());
    for (const [key, value] of Object.entries(own(theirs.agent_metrics))) {
      // The default profiler's sample std (src/metrics, shared) differs from numpy's in the last bit
      // (0.2033060090930254 vs 0.20330600909302543): checked to 1e-12; every other value exactly.
      if (key.startsWith("std/")) expect(ours[key], key).toBeCloseTo(value, 12);
      else expect(ours[key], key).toBe(value);
    }
    expect(Object.keys(metrics[0]!.key_metrics)).toEqual(Object.keys(theirs.key_metrics));
  }, 200_000);
});
