import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJsonl, JsonlError, type JsonlLine } from "./jsonl.js";
import { Materializer } from "./materialize.js";
import { PlanError, previewPlan, writePlan, type RepeatsSpec } from "./plan.js";

const row = (text: string, extra: Record<string, unknown> = {}) => ({ responses_create_params: { input: text }, ...extra });

function lines(...values: Array<Record<string, unknown>>): JsonlLine[] {
  return values.map((value, i) => ({ line: i + 1, text: JSON.stringify(value), value }));
}

function materializer(repeats = 2, knownAgents = ["a", "b"], defaultAgent: string | null = "a") {
  return new Materializer({ file: "in.jsonl", numRepeats: (name) => (name === "b" ? 1 : repeats), defaultAgent: defaultAgent ?? undefined, knownAgents: new Set(knownAgents) });
}

describe("Materializer", () => {
  it("expands repeats consecutively; identical lines share a task and keep counting rollouts", () => {
    const m = materializer(2);
    const out = lines(row("x"), row("y"), row("x")).flatMap((l) => m.expand(l));
    expect(out.map((r) => [r._ng_task_index, r._ng_rollout_index])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
      [0, 2],
      [0, 3],
    ]);
  });

  it("honours an existing _ng_task_index and per-agent repeats", () => {
    const m = materializer(3);
    const out = lines(row("x", { _ng_task_index: 7, agent_ref: { type: "responses_api_agents", name: "b" } })).flatMap((l) => m.expand(l));
    expect(out).toHaveLength(1);
    expect(out[0]!._ng_task_index).toBe(7);
    expect(out[0]!.agent_ref.name).toBe("b");
  });

  it("applies sampling overrides and keeps unknown row fields", () => {
    const m = new Materializer({ file: "f", numRepeats: () => 1, defaultAgent: "a", knownAgents: new Set(["a"]), paramOverrides: { temperature: 0.5 } });
    const [out] = m.expand(lines(row("x", { expected_answer: "42" }))[0]!);
    expect(out!.responses_create_params).toEqual({ input: "x", temperature: 0.5 });
    expect(out!.expected_answer).toBe("42");
  });

  it("names the file and line of a row without an agent, an unknown agent, or a bad create param", () => {
    const noDefault = materializer(1, ["a"], null);
    expect(() => noDefault.expand({ line: 3, text: "{}", value: row("x") })).toThrow(/in\.jsonl:3: row has no agent_ref/);
    expect(() => materializer().expand({ line: 4, text: "{}", value: row("x", { agent_ref: { name: "ghost" } }) })).toThrow(/in\.jsonl:4: unknown agent "ghost"; agents in this config: a, b/);
    expect(() => materializer().expand({ line: 5, text: "{}", value: { responses_create_params: { input: "x", max_tokens: 5 } } })).toThrow(/in\.jsonl:5: invalid row: .*max_tokens/);
  });
});

describe("readJsonl", () => {
  it("names the file and line of malformed JSON and skips blank lines", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-jsonl-"));
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, `${JSON.stringify(row("a"))}\n\n{"responses_create_params": \n`);
    const seen: number[] = [];
    let caught: unknown;
    try {
      for await (const l of readJsonl(file)) seen.push(l.line);
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual([1]);
    expect(caught).toBeInstanceOf(JsonlError);
    expect((caught as Error).message).toContain(`${file}:3: not valid JSON`);
  });

  it("rejects a line that is not an object", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-jsonl-"));
    const file = join(dir, "arr.jsonl");
    writeFileSync(file, "[1,2]\n");
    await expect(async () => {
      for await (const _ of readJsonl(file)) void _;
    }).rejects.toThrow(/arr\.jsonl:1: expected a JSON object per line, got an array/);
  });
});

describe("Materializer with explicit task indices", () => {
  it("keeps counting rollouts of a task named by several lines, whatever their repeats", () => {
    const m = new Materializer({ file: "f", numRepeats: (agent) => (agent === "b" ? 3 : 1), defaultAgent: "a", knownAgents: new Set(["a", "b"]) });
    const out = [
      { responses_create_params: { input: "x" }, _ng_task_index: 4 },
      { responses_create_params: { input: "y" }, _ng_task_index: 4, agent_ref: { name: "b" } },
      { responses_create_params: { input: "z" }, _ng_task_index: 4 },
    ].flatMap((value, i) => m.expand({ line: i + 1, text: JSON.stringify(value), value }));
    expect(out.map((r) => r._ng_rollout_index)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe("writePlan's routing check", () => {
  // The check collects rows by error type (RowRoutingError), not by the words in a message: a file
  // whose path says "agent" must not turn a malformed line into a routing problem.
  const dir = mkdtempSync(join(tmpdir(), "gym-plan-agent-"));
  const plan = (input: string) => writePlan({ inputPath: input, planPath: join(dir, "plan.jsonl"), knownAgents: new Set(["a"]), repeats: 1 });

  it("names every row that cannot reach an agent in one error", async () => {
    const input = join(dir, "agents_rows.jsonl");
    const rows = [row("x", { agent_ref: { name: "nope" } }), row("y"), row("z", { agent_ref: { name: 7 } }), row("w", { agent_ref: { name: "other" } })];
    writeFileSync(input, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const caught = await plan(input).catch((error: unknown) => error);
    expect(caught).toBeInstanceOf(PlanError);
    const message = (caught as Error).message;
    expect(message).toContain("4 input row(s) cannot be routed to an agent");
    expect(message).toContain(`${input}:1: unknown agent "nope"`);
    expect(message).toContain(`${input}:2: row has no agent_ref and no default agent was given`);
    expect(message).toContain(`${input}:3: invalid row: agent_ref.name`);
    expect(message).toContain(`${input}:4: unknown agent "other"`);
  });

  it("stops at the first row that is broken for another reason, whatever the file is called", async () => {
    const input = join(dir, "agent_input.jsonl");
    writeFileSync(input, `${JSON.stringify({ agent_ref: { name: "a" } })}\n${JSON.stringify(row("x", { agent_ref: { name: "nope" } }))}\n`);
    const caught = await plan(input).catch((error: unknown) => error);
    expect(caught).toBeInstanceOf(JsonlError);
    expect(caught).not.toBeInstanceOf(PlanError);
    expect((caught as Error).message).toContain(`${input}:1: invalid row: responses_create_params`);
  });

  // One number of repeats lets a single read of the input both check and plan it; a per-agent map
  // needs the agents first (a separate read). Either way the same plan, and the same errors.
  const both: Array<[string, RepeatsSpec]> = [
    ["one read (repeats 2)", 2],
    ["two reads (repeats map)", { _default: 2 }],
  ];

  it("writes the same plan, agents and total whether the rows are checked in a read of their own or while planned", async () => {
    const input = join(dir, "mixed_rows.jsonl");
    const rows = [row("x"), row("y", { agent_ref: { name: "b" } }), row("x"), row("z", { _ng_task_index: 7 }), row("w")];
    writeFileSync(input, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const results = [];
    for (const [name, repeats] of both) {
      const planPath = join(dir, `plan_${results.length}.jsonl`);
      const options = { inputPath: input, knownAgents: new Set(["a", "b"]), defaultAgent: "a", repeats, limit: 4, shard: { index: 0, count: 2 } };
      const plan = await writePlan({ ...options, planPath });
      const preview = await previewPlan(options);
      results.push({ name, text: readFileSync(planPath, "utf8"), agents: [...plan.agents].sort(), total: plan.total, preview: [preview.total, preview.tasks, [...preview.agents]] });
    }
    expect(results[0]!.text).not.toBe("");
    expect(results[0]!.total).toBe(results[0]!.text.trim().split("\n").length);
    expect(results[0]!.agents).toEqual(["a", "b"]);
    expect({ ...results[0], name: "" }).toEqual({ ...results[1], name: "" });
  });

  it("names every unroutable row, leaves no plan behind, and previews the same error, in both ways of reading", async () => {
    const input = join(dir, "late_bad_rows.jsonl");
    const rows = [row("x"), row("y", { agent_ref: { name: "nope" } }), row("z"), row("w", { agent_ref: { name: "other" } }), row("v")];
    writeFileSync(input, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const messages: string[] = [];
    for (const [name, repeats] of both) {
      const planPath = join(dir, `refused_${messages.length}.jsonl`);
      const options = { inputPath: input, knownAgents: new Set(["a"]), defaultAgent: "a", repeats };
      const written = await writePlan({ ...options, planPath }).catch((error: unknown) => error);
      const previewed = await previewPlan(options).catch((error: unknown) => error);
      expect(written, name).toBeInstanceOf(PlanError);
      expect((previewed as Error).message, name).toBe((written as Error).message);
      expect(existsSync(planPath) || existsSync(`${planPath}.partial`), name).toBe(false);
      messages.push((written as Error).message);
    }
    expect(messages[0]).toContain("2 input row(s) cannot be routed to an agent");
    expect(messages[0]).toContain(`${input}:2: unknown agent "nope"`);
    expect(messages[0]).toContain(`${input}:4: unknown agent "other"`);
    expect(messages[1]).toBe(messages[0]);
  });
});
