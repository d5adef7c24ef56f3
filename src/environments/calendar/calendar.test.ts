// calendar: the grader's rules on our own cases (traps included), what /verify grades (the last output
// item), NeMo Gym's recorded rollouts re-verified, and both NeMo Gym configs run unchanged with the
// engine double replaying the recorded answers, default metrics checked.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import calendar from "./index.js";
import { extractJsonList, gradeAssistantResponse, timeToMinutes } from "./grade.js";
import { assistantMessage, functionCall, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine } from "../../../test/doubles/fake_engine.js";
import { runGym, readJsonlFile } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { recordedInputsFile } from "../../../test/helpers/recorded_inputs_by_prompt.js";
import { recordedPolicy } from "../../../test/helpers/recorded_policy.js";

const window = { min_time: "10:00", max_time: "16:00" };
const expected = {
  "0": { event_id: 0, duration: 60, constraint: "between 10am and 11:45am", ...window },
  "1": { event_id: 1, duration: 30, constraint: "before 1:45pm", ...window },
};
const cal = (...events: Array<Record<string, unknown>>) => `Here is your calendar:\n${JSON.stringify(events)}`;
const grade = (answer: string, exp: Record<string, unknown> = expected) => gradeAssistantResponse(answer, exp);

describe("times", () => {
  it("24-hour and am/pm forms, 12am and 12pm", () => {
    expect([timeToMinutes("10:00"), timeToMinutes(" 9:05 "), timeToMinutes("10am"), timeToMinutes("12am"), timeToMinutes("12pm"), timeToMinutes("1:45pm"), timeToMinutes("12:30am")]).toEqual([600, 545, 600, 0, 720, 825, 30]);
    expect(() => timeToMinutes("10:00:00")).toThrow();
    expect(() => timeToMinutes("ten")).toThrow();
  });
  it("the first JSON list holding an object; a list of plain values or broken JSON is none", () => {
    expect(extractJsonList('x [1, 2] then [{"a": 1}] and [{"b": 2}]')).toMatchObject({ k: "list" });
    expect(extractJsonList("[1, 2, 3]")).toBeNull();
    expect(extractJsonList("[{'a': 1}]")).toBeNull();
  });
});

describe("grading rules", () => {
  it("a calendar meeting every constraint → pass", () => {
    expect(grade(cal({ event_id: 0, start_time: "10:30", duration: 60 }, { event_id: 1, start_time: "13:00", duration: 30 }))).toEqual([1, "pass"]);
  });
  it("ids as Python's str() writes them: event_id \"1\" and 1 both name event 1; 1.0 does not", () => {
    expect(grade(cal({ event_id: "0", start_time: "10:30", duration: 60 }, { event_id: 1, start_time: "13:00", duration: 30 }))[0]).toBe(1);
    expect(grade(`[{"event_id": 0, "start_time": "10:30", "duration": 60}, {"event_id": 1.0, "start_time": "13:00", "duration": 30}]`)).toEqual([0, "error_in_grading"]);
  });
  it("trap: touching events do not overlap, overlapping ones fail; a duplicate of the same event is not a conflict with itself", () => {
    expect(grade(cal({ event_id: 0, start_time: "10:45", duration: 60 }, { event_id: 1, start_time: "11:45", duration: 30 }))[0]).toBe(1);
    expect(grade(cal({ event_id: 0, start_time: "10:45", duration: 60 }, { event_id: 1, start_time: "11:30", duration: 30 }))).toEqual([0, "conflicting_events"]);
    // Python skips every event equal (==) to the one checked, so an exact duplicate never conflicts.
    const once = { "0": expected["0"] };
    expect(grade(cal({ event_id: 0, start_time: "10:30", duration: 60 }, { event_id: 0, start_time: "10:30", duration: 60 }), once)).toEqual([1, "pass"]);
    expect(grade(cal({ event_id: 0, start_time: "10:30", duration: 60 }, { event_id: 0, start_time: "10:45", duration: 60 }), once)).toEqual([0, "conflicting_events"]);
  });
  it("trap: an event ending after the window's end, one starting before its start, a wrong duration → constraint_violated", () => {
    const late = { "0": { event_id: 0, duration: 60, constraint: null, ...window } };
    expect(grade(cal({ event_id: 0, start_time: "15:30", duration: 60 }), late)).toEqual([0, "constraint_violated"]);
    expect(grade(cal({ event_id: 0, start_time: "15:00", duration: 60 }), late)).toEqual([1, "pass"]);
    expect(grade(cal({ event_id: 0, start_time: "9:30", duration: 60 }), late)).toEqual([0, "constraint_violated"]);
    expect(grade(cal({ event_id: 0, start_time: "11:00", duration: 45 }), late)).toEqual([0, "constraint_violated"]);
    // 60.0 == 60 in Python.
    expect(grade(`[{"event_id": 0, "start_time": "11:00", "duration": 60.0}]`, late)).toEqual([1, "pass"]);
  });
  it("before (ends by), after (starts at or after), between (inside), at (starts exactly)", () => {
    const one = (constraint: string, start: string, duration = 30) => grade(cal({ event_id: 0, start_time: start, duration }), { "0": { event_id: 0, duration, constraint, ...window } })[0];
    expect([one("before 1:45pm", "13:15"), one("before 1:45pm", "13:16")]).toEqual([1, 0]);
    expect([one("after 2pm", "14:00"), one("after 2pm", "13:59")]).toEqual([1, 0]);
    expect([one("between 10am and 11:45am", "11:15"), one("between 10am and 11:45am", "11:16")]).toEqual([1, 0]);
    expect([one("at 12:15pm", "12:15"), one("at 12:15pm", "12:20")]).toEqual([1, 0]);
    expect(one("sometime soon", "12:20")).toBe(1);
  });
  it("a different number of events, no list, an empty list, a <think> block → 0; nothing expected → 1 whatever the answer", () => {
    expect(grade(cal({ event_id: 0, start_time: "10:30", duration: 60 }))).toEqual([0, "different_number_of_events"]);
    expect(grade("I scheduled both.")).toEqual([0, "no_json_list"]);
    expect(grade("<think>plan</think>" + cal({ event_id: 0, start_time: "10:30", duration: 60 }, { event_id: 1, start_time: "13:00", duration: 30 }))).toEqual([0, "think_found"]);
    expect(grade("Sure, noted.", {})).toEqual([1, "pass"]);
  });
  it("malformed events (no start_time, a string duration, an unknown id) → error_in_grading", () => {
    expect(grade(cal({ event_id: 0, duration: 60 }, { event_id: 1, start_time: "13:00", duration: 30 }))).toEqual([0, "error_in_grading"]);
    expect(grade(cal({ event_id: 0, start_time: "10:30", duration: "60" }, { event_id: 1, start_time: "13:00", duration: 30 }))).toEqual([0, "error_in_grading"]);
    expect(grade(cal({ event_id: 0, start_time: "10:30", duration: 60 }, { event_id: 7, start_time: "13:00", duration: 30 }))).toEqual([0, "error_in_grading"]);
  });
});

describe("/verify", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(calendar);
  });
  afterAll(() => env.close());
  const verify = (output: Array<Record<string, unknown>>) =>
    env.request("/verify", { responses_create_params: { input: [{ role: "user", content: "Plan my day." }] }, exp_cal_state: expected, response: responseWith(output) });
  const good = cal({ event_id: 0, start_time: "10:30", duration: 60 }, { event_id: 1, start_time: "13:00", duration: 30 });

  it("grades the last output item's first text; the reply is the base verify response", async () => {
    const result = await verify([assistantMessage(good)]);
    expect(result.body.reward).toBe(1);
    expect(Object.keys(result.body)).toEqual(["responses_create_params", "response", "reward"]);
    expect(result.text).toContain('"reward":1.0');
  });
  it("trap: a right calendar earlier in the output, then a tool call last → 0; reasoning text as the last item is graded", async () => {
    expect((await verify([assistantMessage(good), functionCall("noop", {})])).body.reward).toBe(0);
    const reasoning = { type: "reasoning", id: "rs", summary: [], content: [{ type: "reasoning_text", text: good }] };
    expect((await verify([reasoning])).body.reward).toBe(1);
    expect((await verify([{ type: "reasoning", id: "rs", summary: [{ type: "summary_text", text: good }] }])).body.reward).toBe(0);
  });
});

describe("NeMo Gym's recordings and configs (07d6b0d)", () => {
  let dir: string;
  let checkout: NemoGymCheckout;
  let engine: FakeEngine;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-calendar-"));
    checkout = nemoGymCheckout(["calendar"]);
    engine = await startFakeEngine({ policy: recordedPolicy(recordedRollouts("calendar")) });
  });
  afterAll(async () => {
    await engine.close();
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the five recorded rollouts re-verify to their recorded rewards (joined with their rows by --inputs)", async () => {
    const inputs = recordedInputsFile("calendar", dir);
    const { result, recorded, reverified } = await reverifyRecorded("calendar", ["--resources-server", "calendar", "--inputs", inputs, "--force"]);
    expect(result.code, result.stderr).toBe(0);
    expect(recorded).toEqual([1, 0, 1, 0, 0]);
    expect(reverified).toEqual(recorded);
  }, 200_000);

  for (const config of ["calendar", "calendar_v2"]) {
    it(`${config}.yaml runs unchanged on example.jsonl: every row back, the recorded rewards, default metrics`, async () => {
      const output = join(dir, `${config}.jsonl`);
      const result = await runGym(
        ["eval", "run", "--config", `resources_servers/calendar/configs/${config}.yaml`, "--agent", "calendar_simple_agent", "--input", "resources_servers/calendar/data/example.jsonl", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", output, "--quiet"],
        { cwd: checkout.root, timeoutMs: 180_000 },
      );
      expect(result.code, result.stderr + result.stdout).toBe(0);
      const rows = readJsonlFile(output).sort((a, b) => a._ng_task_index - b._ng_task_index);
      expect(rows.map((r) => r.reward)).toEqual([1, 0, 0, 1, 0]);
      const [metrics] = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      expect(metrics!.agent_metrics["mean/reward"]).toBeCloseTo(0.4, 12);
      expect(metrics!.agent_metrics["median/reward"]).toBe(0);
    }, 200_000);
  }
});

describe("agreement with NeMo Gym's grader (test/fixtures/tools_upstream/calendar.json, made by its utils.py)", () => {
  const cases = JSON.parse(readFileSync(new URL("../../../test/fixtures/tools_upstream/calendar.json", import.meta.url), "utf8")) as Array<{ answer: string; exp_cal_state: Record<string, unknown>; reward: number; reason: string }>;
  it(`${cases.length} cases: the same reward and reason for every one`, () => {
    expect(cases.length).toBeGreaterThan(250);
    const disagreements = cases.filter((c) => JSON.stringify(gradeAssistantResponse(c.answer, c.exp_cal_state)) !== JSON.stringify([c.reward, c.reason]));
    expect(disagreements).toEqual([]);
  });
});
