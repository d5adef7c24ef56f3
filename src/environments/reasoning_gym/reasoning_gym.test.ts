// reasoning_gym over HTTP: the answer extraction and knights_knaves's score_answer in-process (full
// credit in any order, partial credit, the wrong count of pairs, empty answers, a family not ported
// and a row without a task answered 4xx, never a 500), then NeMo Gym's reasoning_gym.yaml run unchanged
// by simple_agent on NeMo Gym's example rows, the engine double answering each question with the
// recorded reply: every recorded reward comes back.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { closeDispatcher } from "../../http/client.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts } from "../../../test/helpers/nemo_gym_catalog.js";
import { engineOf } from "../../../test/helpers/scope.js";
import environment, { extractAnswer } from "./index.js";
import { normalizeAnswer, scoreKnightsKnaves } from "./knights_knaves.js";

const rows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const ROW = rows[0]!; // Zoey is a fool, and Riley is a sage.

describe("answer extraction and knights_knaves's score_answer", () => {
  it("takes the last <answer> tag, else the first \\boxed{}, else the whole text, stripped", () => {
    expect(extractAnswer("<answer>x</answer> then <answer>\n Zoey is a fool \n</answer>")).toBe("Zoey is a fool");
    expect(extractAnswer("so \\boxed{ A is a knight } and \\boxed{B}")).toBe("A is a knight");
    expect(extractAnswer("\n\n  plain answer \u0085")).toBe("plain answer");
    expect(extractAnswer("")).toBe("");
  });

  it("scores sets of (name, role) pairs: 1.0 in any order, 0.3 + 0.7·k/n partial, else 0", () => {
    expect([...normalizeAnswer("Zoey is a fool, and Riley is a sage.")].sort()).toEqual([JSON.stringify(["riley", "sage"]), JSON.stringify(["zoey", "fool"])]);
    const oracle = "Zoey is a fool, and Riley is a sage.";
    expect(scoreKnightsKnaves("riley is a SAGE and zoey is a fool", oracle)).toBe(1.0);
    expect(scoreKnightsKnaves("Zoey (fool), Riley (sage)", oracle)).toBe(1.0);
    expect(scoreKnightsKnaves("Zoey is a fool, and Riley is a fool.", oracle)).toBe(0.3 + (0.7 * 1) / 2);
    expect(scoreKnightsKnaves("Zoey is a sage, and Riley is a fool.", oracle)).toBe(0.0);
    expect(scoreKnightsKnaves("Zoey is a fool.", oracle)).toBe(0.0);
    expect(scoreKnightsKnaves("", oracle)).toBe(0.0);
    expect(scoreKnightsKnaves("Zoey is a fool", null)).toBe(0.0);
  });
});

describe("the /verify route", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(environment);
  });
  afterAll(async () => {
    await env.close();
    await closeDispatcher();
  });

  it("answers NeMo Gym's fields: the row, reward, task_name, score, extracted_answer", async () => {
    const reply = await env.request("/verify", { ...ROW, response: responseWith([assistantMessage("Thinking... <answer>Zoey is a fool, and Riley is a sage.</answer>")]) });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ reward: 1, question: ROW.question, answer: ROW.answer, metadata: ROW.metadata, task_name: "knights_knaves", score: 1, extracted_answer: "Zoey is a fool, and Riley is a sage." });
  });

  it("refuses a family it has no scorer for and a row without a task, and 422s a row without question", async () => {
    const other = await env.request("/verify", { ...ROW, metadata: { source_dataset: "basic_arithmetic" }, response: responseWith([assistantMessage("<answer>4</answer>")]) });
    expect(other.status).toBe(400);
    expect(JSON.stringify(other.body)).toContain('task family \\"basic_arithmetic\\" is not ported');
    const none = await env.request("/verify", { ...ROW, metadata: {}, response: responseWith([assistantMessage("x")]) });
    expect(none.status).toBe(422);
    const { question: _q, ...noQuestion } = ROW;
    expect((await env.request("/verify", { ...noQuestion, response: responseWith([assistantMessage("x")]) })).status).toBe(422);
  });
});

describe("NeMo Gym's config, unchanged, on NeMo Gym's example rows with the recorded replies", () => {
  const recorded = recordedRollouts("reasoning_gym");
  const promptOf = (row: Record<string, any>) => row.responses_create_params.input[0].content as string;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gym-reasoning-gym-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("simple_agent reaches every recorded reward", async () => {
    const replies = new Map(recorded.map((r) => [promptOf(r), r.response.output.find((item: any) => item.type === "message").content[0].text as string]));
    expect(new Set(rows.map(promptOf))).toEqual(new Set(replies.keys()));
    const engine = await engineOf({ policy: (turns) => ({ text: replies.get(turns.find((t) => t.role === "user")!.content) ?? "no recorded reply" }) });
    const checkout = nemoGymCheckout(["reasoning_gym"]);
    try {
      const out = join(dir, "rollouts.jsonl");
      const result = await runGym(
        ["eval", "run", "--config", "resources_servers/reasoning_gym/configs/reasoning_gym.yaml", "--input", "resources_servers/reasoning_gym/data/example.jsonl", "--agent", "reasoning_gym_simple_agent",
          "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-o", out, "--quiet"],
        { cwd: checkout.root, timeoutMs: 120_000 },
      );
      expect(result.code, result.stderr + result.stdout).toBe(0);
      const ours = readJsonlFile(new URL(`file://${out}`));
      expect(ours).toHaveLength(recorded.length);
      let matched = 0;
      for (const row of ours) {
        const theirs = recorded.find((r) => promptOf(r) === promptOf(row))!;
        expect([row.reward, row.score, row.task_name], promptOf(row)).toEqual([theirs.reward, theirs.score, theirs.task_name]);
        // NeMo Gym's recording kept the answer unstripped (an earlier app.py); 07d6b0d strips it.
        expect(row.extracted_answer).toBe((theirs.extracted_answer as string).trim());
        matched += 1;
      }
      expect(matched).toBe(5);
      expect(ours.map((r) => r.reward).sort()).toEqual([0, 0, 0, 1, 1]);
    } finally {
      checkout.remove();
    }
  }, 200_000);
});
