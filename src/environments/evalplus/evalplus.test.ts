// evalplus (NeMo Gym 07d6b0d, evalplus 0.3.1 rules): code extraction, the checks in the real sandbox on
// EvalPlus-shaped tasks made in this repository (testdata/), with traps that must not be rewarded, the
// metrics override, NeMo Gym's config run unchanged, and NeMo Gym's recorded rollouts re-verified
// when the real HumanEval+ file is given (HUMANEVAL_OVERRIDE_PATH, evalplus' own variable).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import evalplus, { checkSolution } from "./index.js";
import { extractCodeStrict } from "./extract.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { readJsonlFile, runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

const ID = "evalplus";
const TESTDATA = fileURLToPath(new URL("./testdata/", import.meta.url));
const HUMANEVAL = join(TESTDATA, "humanevalplus_tasks.jsonl");
const MBPP = join(TESTDATA, "mbppplus_tasks.jsonl");
const recorded = recordedRollouts(ID);
const fenced = (code: string) => `Here it is.\n\`\`\`python\n${code}\n\`\`\`\n`;

describe("code extraction (strict last fence)", () => {
  it("prefers the last ```python, else the last ```, strips, and needs a closing fence", () => {
    expect(extractCodeStrict("```python\na = 1\n```\n```python\n  b = 2  \n```")).toBe("b = 2");
    expect(extractCodeStrict("```python\na\n```\n```\nplain\n```")).toBe("a"); // ```python wins over a later bare fence
    expect(extractCodeStrict("```python\nx\r\ny\n```")).toBe("x\ny");
    // With bare fences only, the last one found is the closing fence: nothing follows it.
    expect(extractCodeStrict("```\nx\n```")).toBe("");
    expect(extractCodeStrict("```python\nunclosed")).toBe("");
    expect(extractCodeStrict("no code")).toBe("");
  });
});

describe("evalplus /verify on repository-made tasks", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(evalplus, { config: { humaneval_file: HUMANEVAL, mbpp_file: MBPP, num_processes: 2 } });
  });
  afterAll(() => env?.close());
  const verify = (taskId: string | undefined, text: string) =>
    env.request("/verify", { responses_create_params: { input: "x" }, response: responseWith(text ? [assistantMessage(text)] : []), verifier_metadata: taskId === undefined ? {} : { task_id: taskId } }).then((r) => r.body);

  it("passes the recorded models' code for HumanEval/0-4 (prompt put in front unless already there)", async () => {
    const bodies = await Promise.all(recorded.map((r) => verify(r.verifier_metadata.task_id, r.response.output.at(-1).content[0].text)));
    expect(bodies.map((b) => [b.reward, b.base_status, b.plus_status, b.is_correct, b.is_correct_plus])).toEqual(recorded.map(() => [1, "pass", "pass", true, true]));
    expect(bodies.map((b) => [b.metadata.base_details.length, b.metadata.plus_details.length])).toEqual([[2, 4], [1, 3], [2, 3], [2, 3], [1, 3]]);
    expect(bodies[0].metadata.base_details).toEqual([1, 1]);
  });

  it("does not reward wrong, partly right, crashing or guarded code", async () => {
    const wrong = await verify("HumanEval/0", fenced("def has_close_elements(numbers, threshold):\n    return True"));
    expect(wrong).toMatchObject({ reward: 0, base_status: "fail", plus_status: "fail", is_correct: false, metadata: { base_details: [0, 1], plus_details: [0, 0, 0, 0] } });
    // The code is stripped, so a bare body loses its first indent: the program no longer loads.
    expect(await verify("HumanEval/0", fenced("    return False"))).toMatchObject({ reward: 0, base_status: "fail", metadata: { base_details: [], plus_details: [] } });
    // Base inputs pass, an empty plus input raises: reward 0 with is_correct true.
    const partly = await verify("HumanEval/3", fenced("import itertools\ndef below_zero(operations):\n    return min(itertools.accumulate(operations)) < 0"));
    expect(partly).toMatchObject({ reward: 0, base_status: "pass", plus_status: "fail", is_correct: true, is_correct_plus: false, metadata: { plus_details: [0, 1, 1] } });
    // Code that fails to load: "fail" with no details.
    const broken = await verify("HumanEval/3", fenced("def below_zero(operations):\n    return (("));
    expect(broken).toMatchObject({ reward: 0, base_status: "fail", metadata: { base_details: [] } });
    // The reliability guard: open() is disabled while the solution loads.
    const guarded = await verify("HumanEval/2", fenced("def truncate_number(number):\n    return number % 1.0\nopen('x', 'w')"));
    expect(guarded).toMatchObject({ base_status: "fail", reward: 0 });
  });

  it("tolerates floats within atol (1e-6 when the task's is 0), but not a type change", async () => {
    expect(await verify("HumanEval/2", fenced("def truncate_number(number):\n    return number - int(number) + 1e-9"))).toMatchObject({ reward: 1 });
    expect(await verify("HumanEval/2", fenced("def truncate_number(number):\n    return round(number % 1.0, 2)"))).toMatchObject({ reward: 0, plus_status: "fail" });
    expect(await verify("HumanEval/900", fenced("def third(x):\n    return x / 3 + 1e-4"))).toMatchObject({ reward: 1 });
    expect(await verify("HumanEval/900", fenced("def third(x):\n    return int(x / 3)"))).toMatchObject({ reward: 0, base_status: "fail" });
  });

  it("never passes HumanEval/32 (find_zero's oracle records nothing), and reports a child that never ends as timeout", async () => {
    const root = "    lo, hi = -1000.0, 1000.0\n    for _ in range(200):\n        mid = (lo + hi) / 2\n        if (poly(xs, lo) > 0) == (poly(xs, mid) > 0):\n            lo = mid\n        else:\n            hi = mid\n    return lo";
    expect(await verify("HumanEval/32", fenced(`def find_zero(xs):\n${root}`))).toMatchObject({ reward: 0, base_status: "fail", metadata: { base_details: [] } });
    const stuck = await verify("HumanEval/900", fenced("def third(x):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass"));
    expect(stuck).toMatchObject({ reward: 0, base_status: "timeout", plus_status: "timeout", metadata: { base_details: [] } });
  }, 60_000);

  it("reshapes MBPP+ inputs and applies its set oracle", async () => {
    expect(await verify("Mbpp/2", fenced("def similar_elements(a, b):\n    assert isinstance(a, tuple)\n    return sorted(set(a) & set(b), reverse=True)"))).toMatchObject({ reward: 1 });
    expect(await verify("Mbpp/252", fenced("import cmath\ndef convert(n):\n    assert isinstance(n, complex)\n    return cmath.polar(n)"))).toMatchObject({ reward: 1 });
  });

  it("answers a missing or unknown task, an empty answer and unfenced code with reward 0", async () => {
    expect(await verify(undefined, fenced("x"))).toMatchObject({ reward: 0, metadata: { error: "missing task_id in verifier_metadata" } });
    expect(await verify("HumanEval/77", fenced("x"))).toMatchObject({ reward: 0, metadata: { error: "unknown task_id 'HumanEval/77' for dataset 'humaneval'" } });
    expect(await verify("HumanEval/0", "  ")).toEqual(expect.objectContaining({ reward: 0, extracted_model_output: null, is_correct: false }));
    expect(await verify("HumanEval/0", "return True")).toMatchObject({ reward: 0, extracted_model_output: "return True", extracted_model_code: null });
  });
});

describe("agreement with evalplus 0.3.1 itself", () => {
  it("gives evalplus' statuses and details for every case of testdata/reference.jsonl (made by evalplus' own code)", async () => {
    const lines = new Map([HUMANEVAL, MBPP].flatMap((file) => readFileSync(file, "utf8").trim().split("\n").map((line) => [JSON.parse(line).task_id as string, line] as const)));
    const reference = readJsonlFile(join(TESTDATA, "reference.jsonl"));
    const config = evalplus.configSchema.parse({}) as Parameters<typeof checkSolution>[3];
    const got: unknown[] = [];
    for (let i = 0; i < reference.length; i += 2) {
      const batch = reference.slice(i, i + 2).map(async (ref) => {
        const line = lines.get(ref.task_id)!;
        const prompt = JSON.parse(line).prompt as string;
        const solution = ref.code.startsWith(prompt) ? ref.code : prompt + ref.code;
        const verdict = await checkSolution(line, ref.task_id.startsWith("Mbpp/") ? "mbpp" : "humaneval", solution, config);
        return [ref.task_id, verdict.base_status, verdict.base_details, verdict.plus_status, verdict.plus_details];
      });
      got.push(...(await Promise.all(batch)));
    }
    expect(got).toEqual(reference.map((ref) => [ref.task_id, ref.base_status, ref.base_details, ref.plus_status, ref.plus_details]));
  }, 240_000);
});

describe("NeMo Gym's config and recorded rollouts", () => {
  let dir: string;
  let engine: FakeEngine;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-evalplus-"));
    const answers = new Map(recorded.map((r) => [r.responses_create_params.input[0].content as string, r.response.output.at(-1).content[0].text as string]));
    engine = await startFakeEngine({ policy: (turns: Turn[]) => ({ text: answers.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "no idea" }) });
  });
  afterAll(async () => {
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs configs/evalplus.yaml unchanged on example.jsonl (tasks from HUMANEVAL_OVERRIDE_PATH), with NeMo Gym's metrics", async () => {
    const checkout = nemoGymCheckout([ID]);
    try {
      const out = join(dir, "run.jsonl");
      const result = await runGym(
        ["eval", "run", "--config", `resources_servers/${ID}/configs/${ID}.yaml`, "--input", `resources_servers/${ID}/data/example.jsonl`, "--agent", `${ID}_simple_agent`, "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-o", out, "--quiet"],
        { cwd: checkout.root, timeoutMs: 240_000, env: { HUMANEVAL_OVERRIDE_PATH: HUMANEVAL } },
      );
      expect(result.code, result.stderr).toBe(0);
      const rows = readJsonlFile(out).sort((a, b) => a._ng_task_index - b._ng_task_index);
      // Rows 0-4 ask for HumanEval/0-4. NeMo Gym's verify response at 07d6b0d does not declare
      // verifier_metadata, so it is not echoed (its recorded file, made earlier, still has it).
      expect(rows.map((r) => [r.reward, r.base_status, r.plus_status, "verifier_metadata" in r])).toEqual([0, 1, 2, 3, 4].map(() => [1, "pass", "pass", false]));
      const [metrics] = JSON.parse(readFileSync(out.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      expect(metrics!.agent_metrics).toMatchObject({ "mean/reward": 1, "pass@1/passing_base_tests": 100, "pass@1/passing_plus_tests": 100, "majority@1/passing_plus_tests": 100, "pass@1/no_answer": 0, "mean/is_correct_plus": 1 });
      expect(Object.keys(metrics!.key_metrics).sort()).toEqual(
        ["mean/input_tokens", "mean/output_tokens", "pass@1[avg-of-1]/passing_base_tests", "pass@1[avg-of-1]/passing_plus_tests", "pass@1/passing_base_tests", "pass@1/passing_plus_tests", "majority@1/passing_base_tests", "majority@1/passing_plus_tests"].sort(),
      );
    } finally {
      checkout.remove();
    }
  }, 300_000);

  it.skipIf(!process.env.HUMANEVAL_OVERRIDE_PATH)("re-verifies the recorded rollouts to NeMo Gym's rewards on the real HumanEval+ file", async () => {
    const { result, recorded: rewards, reverified, rows } = await reverifyRecorded(ID, ["--resources-server", ID]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(rewards);
    expect(rows.map((r) => [r?.base_status, r?.plus_status, r?.metadata.plus_details.length])).toEqual(recorded.map((r) => [r.base_status, r.plus_status, r.metadata.plus_details.length]));
  }, 600_000);
});
