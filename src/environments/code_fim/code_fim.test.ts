// code_fim (NeMo Gym 07d6b0d, human_eval_infilling's check): the FIM code extraction and overlap
// trimming, the check in the real sandbox on HumanEval-Infilling-shaped tasks made in this repository
// (testdata/: the example rows' real prefixes and suffixes, Gymkit's own tests), NeMo Gym's recorded
// rollouts re-verified (on that data, and on the real split when HUMAN_EVAL_INFILLING_DATA_DIR names
// it), and NeMo Gym's config run unchanged with its metrics.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import codeFim from "./index.js";
import { extractFimCode, postprocessCompletion, removeOverlap } from "./completion.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { readJsonlFile, runGym } from "../../../test/helpers/cli.js";
import { environmentFolder, nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

const ID = "code_fim";
const TESTDATA = fileURLToPath(new URL("./testdata/", import.meta.url));
const recorded = recordedRollouts(ID);
const fenced = (code: string) => `Here:\n\`\`\`python\n${code}\`\`\`\n`;

describe("the infill", () => {
  it("takes the last fenced block after any </think>, unstripped", () => {
    expect(extractFimCode("<think>```python\nx\n```</think>\n```python\n    y = 1\n```")).toBe("\n    y = 1\n");
    expect(extractFimCode("```python\na\n```\n```\nb\n```")).toBe("\na\n");
    expect(extractFimCode("```python\nopen")).toBe("");
    expect(extractFimCode("a\r\n```python\r\nz\r\n```")).toBe("\nz\n");
  });
  it("drops one leading newline and the repeats of the prefix tail and suffix head", () => {
    expect(removeOverlap("def f():\n    if", "    if x:\n", "following")).toBe(" x:\n");
    expect(removeOverlap("a = 1   ", "   b", "following")).toBe("   b"); // spaces on one line are not an overlap
    expect(removeOverlap("    return x\n    pass", "\n    pass\nrest", "preceding")).toBe("    return x");
    expect(postprocessCompletion("\n\nmean = 1\n", "    ", "")).toBe("\nmean = 1\n");
    expect(removeOverlap("x😀", "😀y", "following")).toBe("y"); // code points, as Python
  });
});

describe("code_fim /verify on repository-made tasks", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(codeFim, { config: { data_dir: TESTDATA, timeout: 1 } });
  });
  afterAll(() => env?.close());
  const verify = (taskId: string | undefined, text: string) =>
    env.request("/verify", { responses_create_params: { input: "x" }, response: responseWith(text ? [assistantMessage(text)] : []), verifier_metadata: taskId === undefined ? {} : { task_id: taskId } }).then((r) => r.body);
  const task = (n: number) => `RandomSpanInfilling/HumanEval/${n}/1`;

  it("passes a right infill, also one that repeats the prefix's last line", async () => {
    const middle = " idx != idx2:\n                distance = abs(elem - elem2)\n                if";
    expect(await verify(task(0), fenced(middle))).toMatchObject({ reward: 1, status: "passed", passed: true, completion: middle, metadata: null });
    const repeated = await verify(task(0), fenced(`            if${middle}`));
    expect(repeated).toMatchObject({ reward: 1, completion: middle });
    // The whole line, prefix tail and suffix head included, is trimmed to the span.
    expect(await verify(task(2), fenced("    return number % 1.0\n"))).toMatchObject({ reward: 1, status: "passed", completion: "ber " });
  });

  it("does not reward wrong, broken or endless infills", async () => {
    expect(await verify(task(2), fenced("ber + 0 "))).toMatchObject({ reward: 0, status: "failed: ", passed: false }); // an AssertionError says nothing
    expect(await verify(task(2), fenced("ber (("))).toMatchObject({ reward: 0, status: "failed: invalid syntax (<string>, line 12)" });
    expect(await verify(task(900), fenced("    while True:\n        pass\n"))).toMatchObject({ reward: 0, status: "timed out" });
    // A check that cannot even be interrupted by the timer: the parent's deadline.
    expect(await verify(task(900), fenced("    while True:\n        try:\n            while True: pass\n        except BaseException: pass\n"))).toMatchObject({ reward: 0, status: "timed out" });
  });

  it("answers a missing or unknown task, an empty answer and no code with reward 0", async () => {
    expect(await verify(undefined, fenced("x\n"))).toMatchObject({ reward: 0, metadata: { error: "missing task_id in verifier_metadata" } });
    expect(await verify("RandomSpanInfilling/HumanEval/77/1", fenced("x\n"))).toMatchObject({ metadata: { error: "unknown task_id 'RandomSpanInfilling/HumanEval/77/1' for split 'random_span'" } });
    expect(await verify(task(0), "")).toMatchObject({ reward: 0, extracted_model_output: null, status: null });
    expect(await verify(task(0), "no fence")).toMatchObject({ reward: 0, extracted_model_output: "no fence", extracted_model_code: null });
  });
});

describe("NeMo Gym's recorded rollouts and config", () => {
  let dir: string;
  let engine: FakeEngine;
  let inputs: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-code-fim-"));
    // The recorded lines carry their task index but not the row's verifier_metadata: the inputs file
    // is example.jsonl with each row's index.
    inputs = join(dir, "inputs.jsonl");
    const rows = readJsonlFile(join(environmentFolder(ID), "data", "example.jsonl"));
    writeFileSync(inputs, rows.map((row, i) => JSON.stringify({ ...row, _ng_task_index: i, _ng_rollout_index: 0 })).join("\n"));
    const answers = new Map(recorded.map((r) => [r.responses_create_params.input[0].content as string, r.response.output.filter((o: any) => o.type === "message").at(-1)?.content[0].text ?? ""]));
    engine = await startFakeEngine({ policy: (turns: Turn[]) => ({ text: answers.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "" }) });
  });
  afterAll(async () => {
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const statuses = recorded.map((r) => r.status);

  it("re-verify to NeMo Gym's rewards and statuses on the repository's tasks (the errors arise before any test)", async () => {
    const { result, recorded: rewards, reverified, rows } = await reverifyRecorded(ID, ["--resources-server", ID, "--inputs", inputs, `+${ID}.resources_servers.${ID}.data_dir=${TESTDATA}`]);
    expect(result.code, result.stderr).toBe(0);
    expect(rewards).toEqual([0, 0, 0, 0, 0]);
    expect(reverified).toEqual(rewards);
    expect(rows.map((r) => r?.status)).toEqual(statuses);
    expect(rows.map((r) => r?.completion)).toEqual(recorded.map((r) => r.completion));
  }, 180_000);

  it.skipIf(!process.env.HUMAN_EVAL_INFILLING_DATA_DIR)("re-verify to NeMo Gym's rewards and statuses on the real split", async () => {
    const { result, recorded: rewards, reverified, rows } = await reverifyRecorded(ID, ["--resources-server", ID, "--inputs", inputs]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(rewards);
    expect(rows.map((r) => r?.status)).toEqual(statuses);
  }, 180_000);

  it("runs configs/code_fim.yaml unchanged on example.jsonl, with NeMo Gym's metrics", async () => {
    const checkout = nemoGymCheckout([ID]);
    try {
      const out = join(dir, "run.jsonl");
      const result = await runGym(
        ["eval", "run", "--config", `resources_servers/${ID}/configs/${ID}.yaml`, "--input", `resources_servers/${ID}/data/example.jsonl`, "--agent", `${ID}_simple_agent`, "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-o", out, "--quiet"],
        { cwd: checkout.root, timeoutMs: 240_000, env: { HUMAN_EVAL_INFILLING_DATA_DIR: TESTDATA } },
      );
      expect(result.code, result.stderr).toBe(0);
      const rows = readJsonlFile(out).sort((a, b) => a._ng_task_index - b._ng_task_index);
      const byTask = [...recorded].sort((a, b) => a._ng_task_index - b._ng_task_index);
      expect(rows.map((r) => [r.reward, r.status])).toEqual(byTask.map((r) => [0, r.status]));
      const [metrics] = JSON.parse(readFileSync(out.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      expect(metrics!.agent_metrics).toMatchObject({ "mean/reward": 0, "pass@1/accuracy": 0, "pass@1/no_answer": 20, "majority@1/accuracy": 0 });
      expect(Object.keys(metrics!.key_metrics).sort()).toEqual(["mean/input_tokens", "mean/output_tokens", "pass@1[avg-of-1]/accuracy", "pass@1/accuracy", "majority@1/accuracy"].sort());
    } finally {
      checkout.remove();
    }
  }, 300_000);
});
