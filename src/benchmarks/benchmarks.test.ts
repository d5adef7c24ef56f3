// The benchmark definitions and their preparation, in process: every shipped definition resolving
// (through NeMo Gym's `_inherit_from`) to real instances,
// each prepare.py mapping restated (expected values computed with NeMo Gym's Python code), and the
// sources — a Hugging Face-shaped server on 127.0.0.1 (rows API paged, a gated dataset, raw files),
// a mirror URL, a local file — with their errors.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../config/index.js";
import { benchmarkBuiltinPath } from "../config/builtin_configs.js";
import { builtinIds, loadImplementation, modelConfigPath } from "../orchestrate/registry.js";
import { BenchmarkError, benchmarkConfigPath, benchmarkNames, benchmarkOfDataset, loadPrepareSpec } from "./definitions.js";
import { prepareBenchmark } from "./prepare.js";
import { agentDatasets } from "./run_input.js";
import { decodeTestCases, namedTransform } from "./transforms.js";

const SHIPPED = ["aime24", "aime25", "gpqa", "gsm8k", "hendrycks_math", "hmmt_feb25", "ifbench", "ifeval", "livecodebench/v5_2408_2502", "livecodebench/v6_2408_2505"];

describe("the shipped definitions", () => {
  it("are the benchmarks the built-in environments serve", () => {
    expect(benchmarkNames()).toEqual(SHIPPED);
  });

  for (const name of SHIPPED) {
    it(`${name}: its config resolves to real instances, with one benchmark dataset the spec prepares`, async () => {
      const spec = loadPrepareSpec(name);
      const resolved = await resolveConfig({
        configPaths: [benchmarkConfigPath(name)],
        overrides: ["+policy_base_url=http://127.0.0.1:9/v1", "+policy_model_name=m", "+policy_api_key=dummy"],
        replaceInstances: { policy_model: modelConfigPath("vllm_model") },
        envYaml: false,
        env: {},
        registry: { loadImplementation, builtinIds },
      });
      const agents = agentDatasets(resolved.config).filter(({ datasets }) => datasets.some((d) => d.type === "benchmark"));
      expect(agents).toHaveLength(1);
      const [dataset] = agents[0]!.datasets.filter((d) => d.type === "benchmark");
      expect(benchmarkOfDataset(dataset!)).toBe(name);
      expect(basename(String(dataset!.jsonl_fpath))).toBe(spec.output);
      if (dataset!.prompt_config !== undefined) expect(existsSync(benchmarkBuiltinPath(String(dataset!.prompt_config))!)).toBe(true);
      // The generic instances it inherits from are gone: only the benchmark's own environment runs, the one its agent plays.
      const environments = resolved.instances.filter((i) => i.type === "resources_servers").map((i) => i.name);
      const agent = resolved.instances.find((i) => i.name === agents[0]!.agent)!;
      expect(environments).toEqual([(agent.fields.resources_server as { name: string }).name]);
    });
  }

  it("an unknown name is refused with the nearest one and the list", () => {
    expect(() => benchmarkConfigPath("gsm8")).toThrow(BenchmarkError);
    expect(() => benchmarkConfigPath("gsm8")).toThrow(/--benchmark gsm8: Gymkit ships no such benchmark\. Did you mean `gsm8k`\? Shipped: aime24, aime25, /);
    expect(() => benchmarkConfigPath("../etc")).toThrow(/a benchmark name is a folder path/);
  });
});

describe("prepare.py's mappings", () => {
  it("gsm8k: the number after ####, calculator notes dropped, NeMo Gym's answer fixes applied", () => {
    const spec = loadPrepareSpec("gsm8k");
    const map = namedTransform(spec.transform!);
    expect(map({ question: "Q1", answer: "Janet has 3<<1+2=3>> eggs.\nShe sells 2.\n#### 1,234" }, 0)).toEqual({ question: "Q1", expected_answer: 1234, reference_solution: "Janet has 3 eggs.\nShe sells 2.\n" });
    expect(map({ question: "Q2", answer: "half\n#### 2.5" }, 1)!.expected_answer).toBe(2.5);
    const fixed = "Pete has to take a 10-minute walk down to the train station and then board a 1hr 20-minute train to LA. When should he leave if he cannot get to LA later than 0900 hours? (24-hr time)";
    expect(map({ question: fixed, answer: "x #### 730" }, 2)!.expected_answer).toBe("07:30");
    expect(() => map({ question: "Q3", answer: "no marker" }, 3)).toThrow(/exactly one "####"/);
  });

  it("hendrycks_math: every field kept, answer → expected_answer, problem → question", () => {
    const map = namedTransform(loadPrepareSpec("hendrycks_math").transform!);
    expect(map({ idx: 1, problem: "P", answer: "\\frac12", level: "Level 2" }, 0)).toEqual({ idx: 1, level: "Level 2", expected_answer: "\\frac12", question: "P" });
    expect(map({ question: "Q", answer: "3" }, 1)).toEqual({ expected_answer: "3", question: "Q" });
  });

  it("gpqa: options shuffled as Python's random.Random(md5) shuffles them, uuid5 ids", () => {
    const map = namedTransform(loadPrepareSpec("gpqa").transform!);
    const row = { Question: "Which gas is most abundant in air?", "Correct Answer": "Nitrogen", "Incorrect Answer 1": "Oxygen", "Incorrect Answer 2": "Argon", "Incorrect Answer 3": "Carbon dioxide" };
    // Computed by NeMo Gym's benchmarks/gpqa/prepare.py logic under CPython 3.
    expect(map(row, 0)).toEqual({
      question: "Which gas is most abundant in air?",
      options_text: "A: Nitrogen\nB: Carbon dioxide\nC: Argon\nD: Oxygen",
      problem: "Which gas is most abundant in air?\nA: Nitrogen\nB: Carbon dioxide\nC: Argon\nD: Oxygen",
      options: [{ A: "Nitrogen" }, { B: "Carbon dioxide" }, { C: "Argon" }, { D: "Oxygen" }],
      expected_answer: "A",
      uuid: "0ca3f083-56ce-5649-b19c-d5fc3a8f2614",
    });
  });

  it("ifeval and ifbench: the rows their environments read", () => {
    const source = { key: 1000, prompt: "Write a haiku.", instruction_id_list: ["length_constraints:number_words"], kwargs: [{ num_words: 10, relation: "less than" }] };
    expect(namedTransform({ name: "ifeval" })(source, 4)).toEqual({
      id: 4,
      responses_create_params: { input: [{ role: "user", content: "Write a haiku." }], tools: [], parallel_tool_calls: false },
      verifier_metadata: { prompt: "Write a haiku.", instruction_id_list: source.instruction_id_list, kwargs: source.kwargs, grading_mode: "binary" },
    });
    expect(namedTransform({ name: "ifbench" })(source, 2)).toEqual({ id: 2, instruction_id_list: source.instruction_id_list, prompt: "Write a haiku.", kwargs: source.kwargs, grading_mode: "fraction" });
  });

  it("livecodebench: public JSON and private base64(zlib(pickle)) tests, the date window, the starter code", () => {
    // pickle protocols 2, 4 and 5 of json.dumps([{"input": "3\n", "output": "6\n", "testtype": "stdin"}]), made by CPython.
    for (const raw of [
      "eJxrYIqwYGBgiK5WyswrKC1RslJQMo7JU9JRUMovLYEKmEEESlKLS0oqC1JBQsUlKZl5SrWxhQx6AGJQEyI=",
      "eJxrYJlqwwABPRbR1UqZeQWlJUpWCkrGMXlKOgpK+aUlUAEziEBJanFJSWVBKkiouCQlM0+pNnaKHgCV2RRM",
      "eJxrYJ1qwwABPRbR1UqZeQWlJUpWCkrGMXlKOgpK+aUlUAEziEBJanFJSWVBKkiouCQlM0+pNnaKHgCWHxRN",
    ]) {
      expect(decodeTestCases(raw)).toEqual([{ input: "3\n", output: "6\n", testtype: "stdin" }]);
    }
    const map = namedTransform(loadPrepareSpec("livecodebench/v6_2408_2505").transform!);
    const row = {
      question_content: "Double it.",
      question_id: "abc1",
      difficulty: "easy",
      contest_date: "2025-01-04T00:00:00",
      starter_code: "",
      public_test_cases: JSON.stringify([{ input: "1\n", output: "2\n", testtype: "stdin" }]),
      private_test_cases: "eJxrYJlqwwABPRbR1UqZeQWlJUpWCkrGMXlKOgpK+aUlUAEziEBJanFJSWVBKkiouCQlM0+pNnaKHgCV2RRM",
      metadata: "{}",
    };
    expect(map(row, 0)).toEqual({
      question_content: "Double it.",
      verifier_metadata: { problem_id: "abc1", difficulty: "easy", unit_tests: { inputs: ["1\n", "3\n"], outputs: ["2\n", "6\n"], fn_name: null } },
      formatting_message: expect.stringMatching(/^Read the inputs from stdin/),
      starter_code: "```python\n# YOUR CODE HERE\n```",
    });
    const functional = map({ ...row, starter_code: "class Solution:\n    def f(self): pass", metadata: '{"func_name": "f"}' }, 1)!;
    expect(functional.starter_code).toBe("```python\nclass Solution:\n    def f(self): pass\n```");
    expect((functional.verifier_metadata as { unit_tests: { fn_name: string } }).unit_tests.fn_name).toBe("f");
    expect(map({ ...row, contest_date: "2024-07-31T00:00:00" }, 2)).toBeUndefined();
    expect(map({ ...row, contest_date: "2025-06-01T00:00:00" }, 3)).toBeUndefined();
  });
});

describe("sources: a Hugging Face-shaped server on 127.0.0.1, a mirror, a local file", () => {
  const requests: Array<{ url: string; auth?: string }> = [];
  let hub: http.Server;
  let url: string;
  let cacheDir: string;
  const aime24 = Array.from({ length: 150 }, (_, i) => ({ id: i, problem: `Problem ${i}`, answer: String(i), solution: "…" }));
  const lcb = (file: string, date: string) => `${JSON.stringify({ question_content: `from ${file}`, question_id: file, difficulty: "hard", contest_date: date, starter_code: "", public_test_cases: "[]", private_test_cases: "", metadata: "{}" })}\n`;

  beforeAll(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), "gym-bench-cache-"));
    hub = http.createServer((req, res) => {
      requests.push({ url: req.url ?? "", auth: req.headers.authorization });
      const u = new URL(req.url ?? "/", "http://x");
      const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (u.pathname === "/rows") {
        const dataset = u.searchParams.get("dataset");
        if (dataset === "Idavidrein/gpqa" && req.headers.authorization !== "Bearer hf_good") return json(401, { error: "The dataset is gated" });
        const rows =
          dataset === "HuggingFaceH4/aime_2024"
            ? aime24
            : dataset === "Idavidrein/gpqa"
              ? [{ Question: "Q?", "Correct Answer": "yes", "Incorrect Answer 1": "no", "Incorrect Answer 2": "maybe", "Incorrect Answer 3": "never" }]
              : undefined;
        if (!rows) return json(404, { error: "Not found" });
        const offset = Number(u.searchParams.get("offset"));
        const length = Number(u.searchParams.get("length"));
        return json(200, { rows: rows.slice(offset, offset + length).map((row, i) => ({ row_idx: offset + i, row, truncated_cells: [] })), num_rows_total: rows.length });
      }
      const file = /^\/datasets\/livecodebench\/code_generation_lite\/resolve\/main\/(test\d?\.jsonl)$/.exec(u.pathname);
      if (file) return res.writeHead(200).end(lcb(file[1]!, file[1] === "test.jsonl" ? "2023-01-01T00:00:00" : "2024-10-01T00:00:00"));
      if (u.pathname === "/mirror/gsm8k.jsonl") return res.writeHead(200).end(`${JSON.stringify({ question: "Q", answer: "so\n#### 3" })}\n`);
      res.writeHead(404).end("no");
    });
    await new Promise<void>((resolve) => hub.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(hub.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => hub.close(() => resolve())));

  const env = () => ({ HF_ENDPOINT: url, HF_DATASETS_SERVER_URL: url });

  it("pages through the rows API", async () => {
    const prepared = await prepareBenchmark("aime24", { cacheDir, env: env() });
    expect(prepared.rows).toBe(150);
    expect(prepared.path).toBe(join(cacheDir, "aime24", "aime24_benchmark.jsonl"));
    const lines = readFileSync(prepared.path, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[149]).toEqual({ question: "Problem 149", expected_answer: "149" });
    expect(requests.filter((r) => r.url.includes("aime_2024")).map((r) => new URL(r.url, url).searchParams.get("offset"))).toEqual(["0", "100"]);
  });

  it("asks a gated dataset with the token, and says what to do without one", async () => {
    await expect(prepareBenchmark("gpqa", { cacheDir, env: env() })).rejects.toThrow(/Idavidrein\/gpqa is a gated dataset \(HTTP 401, and no token was given\): accept its terms at .*\/datasets\/Idavidrein\/gpqa and set HF_TOKEN/);
    const prepared = await prepareBenchmark("gpqa", { cacheDir, env: { ...env(), HF_TOKEN: "hf_good" } });
    expect(prepared.rows).toBe(1);
    expect(requests.at(-1)!.auth).toBe("Bearer hf_good");
  });

  it("reads a release's raw files from the hub and keeps the contest-date window", async () => {
    const prepared = await prepareBenchmark("livecodebench/v5_2408_2502", { cacheDir, env: env() });
    // test.jsonl's problem is older than the window; test2..test5 are inside it (test6 is not part of v5).
    expect(prepared.rows).toBe(4);
    const files = requests.filter((r) => r.url.includes("code_generation_lite")).map((r) => r.url.split("/").at(-1));
    expect(files).toEqual(["test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl"]);
    expect(prepared.path).toBe(join(cacheDir, "livecodebench", "v5_2408_2502", "livecodebench_v5_validation.jsonl"));
  });

  it("prepares offline from a mirror URL or a local file, and names the fix when the source is unreachable", async () => {
    const mirrored = await prepareBenchmark("gsm8k", { cacheDir, env: env(), fromUrl: `${url}/mirror/gsm8k.jsonl` });
    expect(readFileSync(mirrored.path, "utf8")).toBe(`${JSON.stringify({ question: "Q", expected_answer: 3, reference_solution: "so\n" })}\n`);
    const local = join(cacheDir, "ifbench_raw.jsonl");
    writeFileSync(local, `${JSON.stringify({ key: 1, prompt: "p", instruction_id_list: [], kwargs: [] })}\n\nnot json\n`);
    await expect(prepareBenchmark("ifbench", { cacheDir, fromFile: local })).rejects.toThrow(`${local}:3: not valid JSON`);
    await expect(prepareBenchmark("hmmt_feb25", { cacheDir, env: { HF_DATASETS_SERVER_URL: "http://127.0.0.1:9" } })).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:9\/rows\?.*--from-file FILE/);
    await expect(prepareBenchmark("hmmt_feb25", { cacheDir, env: env() })).rejects.toThrow(/answered HTTP 404/);
  });
});
