// `gym eval reverify` scores stored rollouts of the three verifier environments offline (no model).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readJsonlFile, REPO_ROOT, runGym } from "./helpers/cli.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gym-reverify-verifiers-"));
});

const dataOf = (env: string, file = "example.jsonl") => join(REPO_ROOT, "src", "environments", env, "data", file);

/** A stored rollout: the data row plus a Responses object whose assistant says `text`. */
function rollout(row: Record<string, unknown>, text: string, task: number): Record<string, unknown> {
  return {
    ...row,
    _ng_task_index: task,
    _ng_rollout_index: 0,
    reward: 0.5, // a stale reward: reverify must replace it
    response: {
      id: `resp_${task}`,
      object: "response",
      created_at: 0,
      model: "recorded",
      status: "completed",
      output: [{ id: `msg_${task}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    },
  };
}

describe("gym eval reverify on the verifier environments", () => {
  it("math_with_judge: stored rollouts score as they were stored", async () => {
    const input = dataOf("math_with_judge", "example_rollouts.jsonl");
    const output = join(dir, "math.jsonl");
    const result = await runGym(["eval", "reverify", "--resources-server", "math_with_judge", "--rollouts", input, "-o", output, "--quiet"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const stored = readJsonlFile(input);
    const again = readJsonlFile(output).sort((a, b) => a._ng_task_index - b._ng_task_index || a._ng_rollout_index - b._ng_rollout_index);
    expect(again.map((r) => r.reward)).toEqual(stored.map((r) => r.reward));
    expect(new Set(again.map((r) => r.reward))).toEqual(new Set([0, 1]));
  });

  it("mcqa: the right letter scores 1 and a wrong one 0, replacing the stale reward", async () => {
    const rows = readJsonlFile(dataOf("mcqa"));
    const lines = rows.flatMap((row, i) => [
      rollout(row, `Reasoning… so the answer is \\boxed{${row.expected_answer}}`, 2 * i),
      rollout(row, `I pick \\boxed{${row.expected_answer === "A" ? "B" : "A"}}`, 2 * i + 1),
    ]);
    const input = join(dir, "mcqa_in.jsonl");
    writeFileSync(input, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const output = join(dir, "mcqa.jsonl");
    const result = await runGym(["eval", "reverify", "--resources-server", "mcqa", "--rollouts", input, "-o", output, "--quiet"]);
    expect(result.code).toBe(0);
    const out = readJsonlFile(output);
    expect(out).toHaveLength(10);
    for (const row of out) expect(row.reward).toBe(row._ng_task_index % 2 === 0 ? 1 : 0);
    const metrics = JSON.parse(readFileSync(join(dir, "mcqa_aggregate_metrics.json"), "utf8"));
    expect(metrics[0].agent_metrics["mean/reward"]).toBe(0.5);
    expect(Object.keys(metrics[0].key_metrics)).toContain("pass@1/accuracy");
  });

  it("instruction_following: re-scored per instruction (its reverify mode is 'unknown', so --force)", async () => {
    const rows = readJsonlFile(dataOf("instruction_following")).slice(0, 1);
    const row = rows[0]!;
    // Row 17616 asks for 4 paragraphs, the third starting with "crash", ending with "contest".
    const good = ["One.", "Two.", "crash went the car.", "The end of the contest"].join("\n\n");
    const input = join(dir, "if_in.jsonl");
    writeFileSync(input, [rollout(row, good, 0), rollout(row, "one paragraph only", 1)].map((l) => JSON.stringify(l)).join("\n") + "\n");
    const output = join(dir, "if.jsonl");
    const refused = await runGym(["eval", "reverify", "--resources-server", "instruction_following", "--rollouts", input, "-o", output, "--quiet"]);
    expect(refused.code).toBe(2);
    const result = await runGym(["eval", "reverify", "--resources-server", "instruction_following", "--rollouts", input, "-o", output, "--force", "--quiet"]);
    expect(result.code).toBe(0);
    const out = readJsonlFile(output).sort((a, b) => a._ng_task_index - b._ng_task_index);
    expect(out.map((r) => [r.reward, r.follow_instruction_list])).toEqual([
      [1, [true, true]],
      [0, [false, false]],
    ]);
  });
});
