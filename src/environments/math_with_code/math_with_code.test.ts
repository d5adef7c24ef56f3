// math_with_code (NeMo Gym 07d6b0d): the answer rule with its traps, the execute_python tool over HTTP
// in the real sandbox (state, the short builtins list, last-line result, errors, SIGALRM, the session
// ended by /verify), NeMo Gym's recorded rollouts re-verified through `gym eval reverify`, and NeMo
// Gym's own config run unchanged through `gym eval run` with its default metrics.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import mathWithCode, { extractAnswer } from "./index.js";
import { answersMatch, lastBoxedAnswer, normalizeAnswer } from "./answer.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { CookieJar } from "../../http/cookies.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { readJsonlFile, runGym } from "../../../test/helpers/cli.js";
import { environmentFolder, nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

const ID = "math_with_code";
const examples = readJsonlFile(join(environmentFolder(ID), "data", "example.jsonl"));
const userPrompt = (row: Record<string, any>) => (row.responses_create_params.input as Array<{ role: string; content: string }>).findLast((m) => m.role === "user")!.content;

describe("the answer rule", () => {
  it("takes the last \\boxed{}, braces balanced, stripped; an unclosed last box hides earlier ones", () => {
    expect(lastBoxedAnswer("first \\boxed{1} then \\boxed{\\frac{1}{2}} done")).toBe("\\frac{1}{2}");
    expect(lastBoxedAnswer("\\boxed{ 42 }")).toBe("42");
    expect(lastBoxedAnswer("\\boxed{7} and \\boxed{8")).toBeNull();
    expect(lastBoxedAnswer("\\boxed{  }")).toBeNull();
    expect(lastBoxedAnswer("\\boxed 5")).toBeNull(); // only the braced form
    expect(lastBoxedAnswer("\\fbox{5}")).toBeNull();
  });
  it("strips one layer of \\( \\), $ $ and \\text{} and collapses whitespace", () => {
    expect(normalizeAnswer(" \\(\\frac{333}{1997}\\) ")).toBe("\\frac{333}{1997}");
    expect(normalizeAnswer("$ x  +\n1 $")).toBe("x + 1");
    expect(normalizeAnswer("\\(\\text{yes}\\)")).toBe("yes");
    expect(normalizeAnswer("$")).toBe("$");
    expect(normalizeAnswer("\\text{ red }")).toBe("red");
  });
  it("matches exactly after normalization, or as Python floats within 1e-6 relative", () => {
    expect(answersMatch("\\sqrt{2}", "\\(\\sqrt{2}\\)")).toBe(true);
    expect(answersMatch("42.0", "42")).toBe(true);
    expect(answersMatch(".5", "0.5")).toBe(true);
    expect(answersMatch("1_000", "1000")).toBe(true); // float() reads underscores
    expect(answersMatch("1000000.5", "1000000")).toBe(true); // within 1e-6 of 1e6
    expect(answersMatch("1.00001", "1")).toBe(false);
    // Traps: no symbolic equivalence, no units, no NaN/inf equality by number.
    expect(answersMatch("\\dfrac{1}{2}", "\\frac{1}{2}")).toBe(false);
    expect(answersMatch("0.5", "\\frac{1}{2}")).toBe(false);
    expect(answersMatch("42 \\text{ cm}", "42")).toBe(false);
    expect(answersMatch("inf", "1e400")).toBe(false);
    expect(answersMatch("nan", "NaN")).toBe(false);
    expect(answersMatch(null, "1")).toBe(false);
  });
  it("reads the latest assistant message with a box, then tool stdout", () => {
    const fco = (output: string) => ({ type: "function_call_output", call_id: "c", output });
    expect(extractAnswer([assistantMessage("\\boxed{1}"), assistantMessage("no box")])).toBe("1");
    expect(extractAnswer([fco('{"stdout": "\\\\boxed{9}\\n"}'), assistantMessage("done")])).toBe("9");
    expect(extractAnswer([fco("\\boxed{raw}")])).toBe("raw"); // not JSON: the raw text
    expect(extractAnswer([fco('{"stderr": "\\\\boxed{9}"}')])).toBeNull(); // a JSON object without stdout
    expect(extractAnswer([{ type: "message", role: "user", content: [{ type: "output_text", text: "\\boxed{3}" }] }])).toBeNull();
  });
});

describe("math_with_code over HTTP", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(mathWithCode, { config: { max_execution_time: 2 } });
  });
  afterAll(() => env?.close());
  const run = (code: string, jar: CookieJar) => env.request("/execute_python", { code }, jar).then((r) => r.body);

  it("keeps state per rollout, allows only the listed builtins, and returns the last line's value", async () => {
    const jar = new CookieJar();
    expect(await run("x = np.arange(4).sum()\nprint('x is', x)", jar)).toEqual({ success: true, stdout: "x is 6\n", stderr: "", error_message: null, result: null });
    expect(await run("x * 7", jar)).toEqual({ success: true, stdout: "", stderr: "", error_message: null, result: "42" });
    expect(await run("import scipy.special\nint(scipy.special.comb(5, 2)) + len(pd.DataFrame({'a': [1, 2]}))", jar)).toMatchObject({ success: true, result: "12" });
    // Another rollout has its own interpreter.
    expect(await run("x", new CookieJar())).toMatchObject({ success: false, error_message: "name 'x' is not defined" });
    // The builtins list is short: sorted, round and isinstance are missing.
    expect(await run("sorted([2, 1])", jar)).toEqual({ success: false, stdout: "", stderr: "", error_message: "name 'sorted' is not defined", result: null });
    // exec(code, globals, locals): top-level names live in locals, which a function cannot see.
    expect(await run("y = 5\ndef f():\n    return y\nprint(f())", jar)).toMatchObject({ success: false, error_message: "name 'y' is not defined" });
    expect(await run("print(", jar)).toMatchObject({ success: false, error_message: "'(' was never closed (<string>, line 1)" });
    // The last line is evaluated again: its side effect happens twice.
    expect(await run("log = []\nlog.append(1)", jar)).toMatchObject({ result: "None" });
    expect(await run("len(log)", jar)).toMatchObject({ result: "2" });
  });

  it("stops a call after max_execution_time, and a SystemExit ends the interpreter", async () => {
    const jar = new CookieJar();
    expect(await run("while True:\n    pass", jar)).toEqual({ success: false, stdout: "", stderr: "", error_message: "code timed-out", result: null });
    expect(await run("import sys\nsys.exit(3)", jar)).toMatchObject({ success: false, error_message: "" });
    expect(await run("1 + 1", jar)).toMatchObject({ success: false, error_message: "[Errno 32] Broken pipe" });
  });

  it("verifies the boxed answer, and /verify ends the rollout's interpreter", async () => {
    const jar = new CookieJar();
    await run("z = 3", jar);
    const body = (text: string, expected: string) => ({ responses_create_params: { input: "q" }, response: responseWith([assistantMessage(text)]), expected_result: expected, id: 7 });
    const right = await env.request("/verify", body("So \\boxed{\\frac{1}{2}}.", "\\(\\frac{1}{2}\\)"), jar);
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ reward: 1.0, extracted_answer: "\\frac{1}{2}", accuracy: true });
    expect(Object.keys(right.body)).toEqual(["responses_create_params", "response", "reward", "extracted_answer", "accuracy"]);
    expect(await run("z", jar)).toMatchObject({ success: false, error_message: "name 'z' is not defined" });
    const wrong = await env.request("/verify", body("\\boxed{0.5}", "\\frac{1}{2}"));
    expect(wrong.body).toMatchObject({ reward: 0.0, extracted_answer: "0.5", accuracy: false });
    const none = await env.request("/verify", body("It is 32.", "32"));
    expect(none.body).toMatchObject({ reward: 0.0, extracted_answer: null, accuracy: false });
    expect((await env.request("/verify", { responses_create_params: { input: "q" }, response: responseWith([]) })).status).toBe(422);
  });
});

/** The example row (with bookkeeping indices) each recorded rollout answered, found by its prompt. */
function inputsFor(rollouts: Array<Record<string, any>>): string {
  return rollouts
    .map((rollout, line) => {
      const row = examples.find((r) => userPrompt(r) === userPrompt(rollout));
      if (!row) throw new Error(`recorded line ${line + 1} answers no example row`);
      return JSON.stringify({ ...row, _ng_task_index: line, _ng_rollout_index: 0 });
    })
    .join("\n");
}

describe("NeMo Gym's recorded rollouts and config", () => {
  let dir: string;
  let engine: FakeEngine;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-mwc-"));
    const recorded = recordedRollouts(ID);
    // The model's final message of each recorded rollout, by prompt; the engine first runs one tool call.
    const finals = new Map(recorded.map((r) => [userPrompt(r), (r.response.output as any[]).filter((o) => o.type === "message").at(-1).content.at(-1).text as string]));
    engine = await startFakeEngine({
      policy: (turns: Turn[]) => {
        const prompt = turns.findLast((t) => t.role === "user")?.content ?? "";
        const tool = turns.find((t) => t.role === "tool");
        if (!tool) return { toolCalls: [{ name: "execute_python", arguments: { code: "import numpy as np\nprint(int(np.prod([6, 7])))" } }] };
        if (!tool.content.includes('"stdout":"42\\n"')) return { text: `tool said ${tool.content}` };
        return { text: finals.get(prompt) ?? "no answer" };
      },
    });
  });
  afterAll(async () => {
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("re-verify to NeMo Gym's rewards, but for one stale row", async () => {
    // The recorded lines carry no input fields and no task index, and are not in example.jsonl's
    // order: the inputs file pairs each line with its example row by the prompt.
    const inputs = join(dir, "inputs.jsonl");
    writeFileSync(inputs, inputsFor(recordedRollouts(ID)));
    const { result, recorded, reverified, rows } = await reverifyRecorded(ID, ["--resources-server", ID, "--inputs", inputs]);
    expect(result.code, result.stderr).toBe(0);
    expect(recorded).toEqual([1, 0, 0, 0, 0]);
    // Stale: line 5 ends with \boxed{\sqrt{2}} against \(\sqrt{2}\). The recording has the extracted
    // answer "\sqrt{2" (an extractor that stopped at the first "}"); NeMo Gym's code at 07d6b0d
    // balances braces and strips \( \), so it scores 1.0, as here. Line 3 shows the same older
    // extraction ("\dfrac{83" recorded) without changing its reward.
    const STALE = new Set([4]);
    reverified.forEach((reward, line) => {
      if (!STALE.has(line)) expect(reward, `line ${line + 1}`).toBe(recorded[line]);
    });
    expect(reverified[4]).toBe(1);
    expect(rows.map((r) => r?.extracted_answer)).toEqual(["-3", "0", "\\dfrac{83}{499}", expect.stringContaining("x_{2016} \\approx"), "\\sqrt{2}"]);
  }, 180_000);

  it("its config runs unchanged with its example rows, and the metrics are NeMo Gym's defaults", async () => {
    const checkout = nemoGymCheckout([ID]);
    try {
      const out = join(dir, "run.jsonl");
      const result = await runGym(
        ["eval", "run", "--config", `resources_servers/${ID}/configs/${ID}.yaml`, "--input", `resources_servers/${ID}/data/example.jsonl`, "--agent", `${ID}_simple_agent`, "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-o", out, "--quiet"],
        { cwd: checkout.root, timeoutMs: 240_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      const rows = readJsonlFile(out).sort((a, b) => a._ng_task_index - b._ng_task_index);
      expect(rows).toHaveLength(5);
      // Rows 0-4 of example.jsonl: 32, x_2016, 333/1997, sqrt 2, -3; the engine replays the recorded final answers.
      expect(rows.map((r) => r.reward)).toEqual([0, 0, 0, 1, 1]);
      expect(rows.every((r) => r.response.output.some((o: any) => o.type === "function_call_output" && o.output.includes('"success":true')))).toBe(true);
      const metrics = JSON.parse(readFileSync(out.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      const agent = metrics[0]!.agent_metrics;
      expect(agent["mean/reward"]).toBeCloseTo(0.4, 12);
      expect(agent["mean/accuracy"]).toBeCloseTo(0.4, 12);
      expect(agent["max/reward"]).toBe(1);
      expect(agent["median/accuracy"]).toBe(0);
    } finally {
      checkout.remove();
    }
  }, 300_000);
});
