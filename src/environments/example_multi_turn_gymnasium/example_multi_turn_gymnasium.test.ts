// example_multi_turn_gymnasium over HTTP: the Gymnasium-style routes in-process (reset, step, the
// episode's end, /verify refused, bad bodies answered 422), then NeMo Gym's config run unchanged by
// gymnasium_agent on NeMo Gym's own recorded episodes: same rewards, same ends, same conversations,
// and the reward metrics of NeMo Gym's aggregate metrics file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { CookieJar } from "../../http/cookies.js";
import { closeDispatcher } from "../../http/client.js";
import { recordedRollouts } from "../../../test/helpers/nemo_gym_catalog.js";
import { runRecordedConfig } from "../../../test/helpers/recorded_config_run.js";
import { engineOf } from "../../../test/helpers/scope.js";
import environment, { strictlyAnswers } from "./index.js";

const ROW = { responses_create_params: { input: [{ role: "user", content: "What is 15 multiplied by 8?" }] }, follow_ups: ["Now divide that result by 6."], expected_answer: "20" };

describe("the Gymnasium-style routes", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(environment);
  });
  afterAll(async () => {
    await env.close();
    await closeDispatcher();
  });

  it("steps through the follow-ups, then ends the episode with the reward of the last reply", async () => {
    const jar = new CookieJar();
    expect((await env.request("/reset", ROW, jar)).body).toEqual({ observation: null, info: {} });
    const first = await env.request("/step", { ...ROW, response: responseWith([assistantMessage("It is 120.")]) }, jar);
    expect(first.body).toEqual({ observation: "Now divide that result by 6.", reward: 0, terminated: false, truncated: false, info: {} });
    expect(first.text).toContain('"reward":0.0');
    const last = await env.request("/step", { ...ROW, response: responseWith([assistantMessage("That gives **20**.")]) }, jar);
    expect(last.body).toEqual({ observation: null, reward: 1, terminated: true, truncated: false, info: {} });
    // The episode's state went with its end: the same session starts over.
    const again = await env.request("/step", { ...ROW, response: responseWith([assistantMessage("20")]) }, jar);
    expect(again.body.observation).toBe("Now divide that result by 6.");
  });

  it("scores 0 without the expected answer, and with no expected answer at all", async () => {
    const wrong = await env.request("/step", { ...ROW, follow_ups: [], response: responseWith([assistantMessage("It is 21.")]) }, new CookieJar());
    expect(wrong.body).toMatchObject({ reward: 0, terminated: true });
    const none = await env.request("/step", { ...ROW, follow_ups: [], expected_answer: "", response: responseWith([assistantMessage("anything")]) }, new CookieJar());
    expect(none.body).toMatchObject({ reward: 0, terminated: true });
  });

  it("refuses /verify with the reason, and answers a step without a response 422", async () => {
    const verify = await env.request("/verify", { ...ROW, response: responseWith([assistantMessage("20")]) });
    expect(verify.status).toBe(400);
    expect(JSON.stringify(verify.body)).toContain("scored step by step on /step, not by /verify; run it with gymnasium_agent");
    expect((await env.request("/step", ROW)).status).toBe(422);
    expect((await env.request("/reset", { follow_ups: [] })).status).toBe(422);
  });
});

describe("strict: true (Gymkit's own; closes the audit's containment cells)", () => {
  // [final reply, expected answer, reward by default (NeMo Gym's containment), reward under strict]
  const cases: Array<[string, string, number, number]> = [
    ["0, 1, 2, 3, 20, 21, 99, 100", "20", 1, 0], // guess.integers: the last number is 100
    ["\\boxed{21}\n\\boxed{20}\n\\boxed{-20}", "20", 1, 0], // guess.all_boxes: the last number is -20
    ["\\boxed{-20}", "20", 1, 0], // wrong.negation
    ["<think>\\boxed{20}</think>\n\\boxed{21}", "20", 1, 0], // wrong.in_think
    ["<!-- \\boxed{Eiffel} -->\n```\n\\boxed{Eiffel}\n```\n\\boxed{Eiffem}", "Eiffel", 1, 0], // wrong.in_comment
    ["\\boxed{Eiffem}\n\\boxed{Eiffel}\n\\boxed{not Eiffel}", "Eiffel", 1, 0], // the last occurrence is negated
    ["It is not the **Eiffel** Tower", "Eiffel", 1, 0],
    ["The Eiffelstein Tower", "Eiffel", 1, 0], // not a whole word
    ["120 ÷ 6 = **20**\n\n✅ Final answer: **20**", "20", 1, 1],
    ["One molecule of water (H₂O) contains **2 hydrogen atoms**.", "2", 1, 1],
    ["One famous landmark in Paris is the Eiffel Tower. Built in 1889, it is one of the most iconic symbols of France.", "Eiffel", 1, 1],
    ["It is 21.", "20", 0, 0],
  ];
  for (const [reply, expected, byDefault, strict] of cases) {
    it(`${JSON.stringify(reply).slice(0, 60)} vs ${JSON.stringify(expected)} → ${byDefault} by default, ${strict} under strict`, () => {
      expect(reply.toLowerCase().includes(expected.toLowerCase()) ? 1 : 0).toBe(byDefault);
      expect(byDefault === 1 && strictlyAnswers(reply, expected) ? 1 : 0).toBe(strict);
    });
  }
  it("over HTTP the episode's end applies it; NeMo Gym's five recorded final replies keep their reward 1", async () => {
    const strictEnv = await startInstance(environment, { name: "multi_turn_strict", config: { strict: true } });
    try {
      // The recordings keep no row fields: each is matched to its example row by its task index.
      const examples = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
      const finals: Array<[string, string]> = recordedRollouts("example_multi_turn_gymnasium").map((r) => {
        const replies = (r.response.output as Array<Record<string, any>>).filter((o) => o.type === "message" && o.role === "assistant");
        return [replies.at(-1)!.content.map((c: { text?: string }) => c.text ?? "").join(""), examples[r._ng_task_index as number]!.expected_answer as string];
      });
      expect(finals.map(([reply, expected]) => strictlyAnswers(reply, expected))).toEqual([true, true, true, true, true]);
      const rewards = [];
      for (const reply of ["That gives **20**.", "Between 0 and 100: 0, 1, 20, 100"]) {
        const row = { ...ROW, follow_ups: [] };
        const jar = new CookieJar();
        await strictEnv.request("/reset", row, jar);
        rewards.push((await strictEnv.request("/step", { ...row, response: responseWith([assistantMessage(reply)]) }, jar)).body.reward as number);
      }
      expect(rewards).toEqual([1, 0]);
    } finally {
      await strictEnv.close();
    }
  });
});

describe("NeMo Gym's config, unchanged, on NeMo Gym's recorded episodes", () => {
  const recorded = recordedRollouts("example_multi_turn_gymnasium");
  const inputs = readJsonlFile(new URL("./data/example_rollouts_materialized_inputs.jsonl", import.meta.url));
  const questionOf = (row: Record<string, any>) => row.responses_create_params.input[0].content as string;
  /** The recorded assistant texts of each episode, by its first question. */
  const replies = new Map<string, string[]>();
  for (const rollout of recorded) {
    const input = inputs.find((row) => row._ng_task_index === rollout._ng_task_index)!;
    replies.set(questionOf(input), rollout.response.output.filter((item: any) => item.role === "assistant").map((item: any) => item.content[0].text));
  }
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gym-multi-turn-gym-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("gymnasium_agent plays every episode to NeMo Gym's reward, end and conversation; metrics as NeMo Gym's", async () => {
    // The engine double answers turn N of an episode with the recorded assistant text N.
    const engine = await engineOf({
      policy: (turns) => {
        const texts = replies.get(turns.find((t) => t.role === "user")!.content) ?? [];
        return { text: texts[turns.filter((t) => t.role === "assistant").length] ?? "no recorded reply" };
      },
    });
    await runRecordedConfig({
      id: "example_multi_turn_gymnasium",
      engineUrl: engine.baseUrl,
      recorded,
      dir,
      metrics: ["mean/reward", "mean/terminated", "mean/truncated", "std/reward", "max/reward", "min/reward"],
      eachRow: (row, theirs) => {
        expect(Object.keys(row).filter((k) => !k.startsWith("_ng_") && k !== "agent_ref")).toEqual(["responses_create_params", "response", "reward", "terminated", "truncated", "info", "steps"]);
        // The follow-ups come back as NeMo Gym writes them: plain user messages between the turns.
        expect(row.response.output.filter((item: any) => item.role === "user")).toEqual(theirs.response.output.filter((item: any) => item.role === "user"));
        // Usage sums every model call of the episode.
        const calls = row.response.output.filter((item: any) => item.role === "assistant").length;
        expect(row.response.usage.output_tokens).toBeGreaterThanOrEqual(calls);
      },
    });
  }, 200_000);
});
