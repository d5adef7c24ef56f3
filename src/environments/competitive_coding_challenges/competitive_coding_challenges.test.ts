// competitive_coding_challenges (NeMo Gym 07d6b0d, ccc_eval.py): answer extraction and includes, the
// test file's two problem shapes, Python's float/round where scores use them, the reward rules (with
// traps), real grading in the sandbox on problems made in this repository (testdata/, same shape as
// NeMo Gym's CCC_TEST_FILE), the metrics override, NeMo Gym's config run unchanged, and NeMo Gym's
// recorded rollouts re-verified (on the repository's stand-in for their problem, and on the real test
// file when CCC_TEST_FILE names it). Every server here keeps builds in one compile_cache_dir, so a
// program compiled once is graded from its kept build by the later tests (and their `gym` processes).
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ccc from "./index.js";
import { CccMetadata } from "./metadata.js";
import { addIncludes, extractFinalCodeBlock, submissionFor } from "./solution.js";
import { pyFloat, pyRound } from "./pyfloat.js";
import { aggregateSubtask, buildKeyOf, patchRunScript, type EntryResult } from "./grader.js";
import { forgetBuilds } from "./build_cache.js";
import { binaryReward, fractionReward } from "./reward.js";
import { cccAggregate } from "./metrics.js";
import { lastAssistantText } from "./text.js";
import { programFor } from "../../sandbox/languages.js";
import { sharedSandbox } from "../../sandbox/shared.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { aggregateMetrics } from "../../metrics/aggregate.js";
import { startFakeEngine, type FakeEngine } from "../../../test/doubles/fake_engine.js";
import { readJsonlFile, runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

const ID = "competitive_coding_challenges";
const TEST_FILE = fileURLToPath(new URL("./testdata/test_metadata.jsonl", import.meta.url));
const recorded = recordedRollouts(ID);
const md = CccMetadata.fromFile(TEST_FILE);
/** The builds every server of this file keeps (removed at the end). */
const BUILDS = mkdtempSync(join(tmpdir(), "gym-ccc-builds-"));
afterAll(() => rmSync(BUILDS, { recursive: true, force: true }));
const builds = () => readdirSync(BUILDS).filter((f) => f.endsWith(".build")).sort();
const cpp = (code: string) => `Reasoning first.\n\`\`\`cpp\n${code}\n\`\`\`\n`;
const MEX = "int main(){int n;cin>>n;set<int>s;for(int i=0;i<n;i++){int x;cin>>x;s.insert(x);}int m=0;while(s.count(m))m++;cout<<m<<endl;}";
const PAIRS_FULL = "int main(){long long a,b;cin>>a>>b;cout<<a+b<<\"\\n\"<<a*b<<\"\\n\";}";
const PAIRS_INT = "int main(){int a,b;cin>>a>>b;cout<<a+b<<\"\\n\"<<a*b<<\"\\n\";}"; // overflows a*b on the big tests
const ZERO = "int main(){cout<<0<<endl;}";
const PAIRS_SUM = "int main(){long long a,b;cin>>a>>b;cout<<a+b<<\"\\n\";}"; // first line only: half marks

describe("answer extraction", () => {
  it("takes the last ```cpp block (any case), else the whole text, and the assistant text of every message", () => {
    expect(extractFinalCodeBlock("```cpp\na\n```\n```CPP  \nb\n```", ["cpp"])).toBe("b\n");
    expect(extractFinalCodeBlock("```cpp\na\n```\n```python\nb\n```", ["cpp"])).toBe("a\n");
    expect(extractFinalCodeBlock("```cpp a```", ["cpp"])).toBe("```cpp a```"); // needs a newline after the tag
    expect(extractFinalCodeBlock("```c++\nx\n```", ["cpp"])).toBe("```c++\nx\n```");
    expect(extractFinalCodeBlock("```text\nL 1\n```", ["txt", "text", "plain"])).toBe("L 1\n");
    const response = { output: [{ type: "reasoning", content: [{ text: "no" }] }, { type: "message", role: "assistant", content: [{ text: " one " }, { text: "two\n" }] }, { type: "message", role: "user", content: "x" }, { type: "message", role: "assistant", content: "three " }] };
    expect(lastAssistantText(response)).toBe("one \ntwo\n\nthree");
  });

  it("adds the includes ccc_eval.py adds for a Batch problem, takes MULTIFILE code as is, SIMULATION text as solution.odo", () => {
    expect(addIncludes("int main(){}", null, "p")).toBe("#include <bits/stdc++.h>\n\nusing namespace std;\n\nint main(){}\n");
    expect(addIncludes("std::vector<int> v;\n", "p.h", "p")).toBe('#include <bits/stdc++.h>\n#include "p.h"\nstd::vector<int> v;\n');
    expect(addIncludes('#include "p.h"\nusing namespace std;', "p.h", "p")).toBe('#include <bits/stdc++.h>\n#include "p.h"\nusing namespace std;\n');
    expect(addIncludes("", "p.h", "p")).toBe("");
    expect(addIncludes("long long count_triples(std::vector<int> H){return 1;}", null, "triples")).toBe(
      "#include <bits/stdc++.h>\nlong long count_triples(std::vector<int> H){return 1;}\nstd::vector<int> construct_range(int M,int K){return {};}\n",
    );
    const problem = md.problem("makingmexes", "usaco25");
    expect(submissionFor(problem, "makingmexes", cpp("int main(){}"))).toEqual({ taskType: "Batch", path: "graders/makingmexes.cpp", code: "#include <bits/stdc++.h>\n\nusing namespace std;\n\nint main(){}\n" });
    const multi = { ...problem, grader_files: [["graders/grader_config.json", '{"task_type": "MULTIFILE"}']] as Array<[string, string]> };
    expect(submissionFor(multi, "m", cpp("int main(){}")).code).toBe("int main(){}\n");
    const sim = { ...problem, grader_files: [["graders/grader_config.json", '{"task_type": "SIMULATION"}']] as Array<[string, string]> };
    expect(submissionFor(sim, "s", "```txt\nMOVE\n```")).toEqual({ taskType: "SIMULATION", path: "solution.odo", code: "MOVE\n" });
  });
});

describe("the test file", () => {
  it("reads competition entries of both key spellings, turns the older per-subtask shape into the current one, ignores a competitions map line", () => {
    expect([...md.byCompetition.keys()]).toEqual(["usaco25", "ioi_mini", "old_contest", ""]);
    const hello = md.problem("hello", null);
    expect(hello.subtasks).toEqual({
      easy: { aggregation: "min", score: 4, score_precision: 0, test_names: ["sample-1", "e-1"], sample_test_names: ["sample-1"], secret_test_names: ["e-1"] },
      hard: { aggregation: "min", score: 6, score_precision: 0, test_names: ["e-1", "h-1"], sample_test_names: [], secret_test_names: ["e-1", "h-1"] },
    });
    expect(Object.keys(hello.all_tests)).toEqual(["sample-1", "e-1", "h-1"]);
    expect(hello.all_tests["sample-1"]!.group).toBe("sample");
    expect(() => md.problem("pairs", "usaco25")).toThrow("Problem 'pairs' not found in competition 'usaco25'");
    expect(() => md.problem("nope", null)).toThrow("Problem 'nope' not found in metadata.");
    expect(() => md.problem("x", "nowhere")).toThrow("Competition 'nowhere' not found");
    expect(md.subtaskCap("pairs", "ioi_mini", "count")).toBe(4);
    expect(md.subtaskCap("pairs", "ioi_mini", "full")).toBe(70);
    expect(md.subtaskCap("pairs", "ioi_mini", "missing")).toBeNull();
  });

  it("patches run.sh as ccc_eval.py does (kill before waiting, unless a kill is just before)", () => {
    expect(patchRunScript('  wait "$user_pid"\n')).toBe('  kill "$user_pid" 2>/dev/null || true\n  wait "$user_pid"\n');
    expect(patchRunScript('kill -9 x\nwait "$user_pid"\n')).toBe('kill -9 x\nwait "$user_pid"\n');
  });
});

describe("Python's float() and round()", () => {
  it("parses run.sh output as float() does", () => {
    expect(["1", "0.5", "1e0", "-0", ".5", "1_0", "inf", "NaN"].map(pyFloat)).toEqual([1, 0.5, 1, -0, 0.5, 10, Infinity, NaN]);
    expect(["", "0x1", "1 1", "one", "1.2.3", "_1"].map(pyFloat)).toEqual([null, null, null, null, null, null]);
  });
  it("rounds half to even", () => {
    expect([pyRound(5.5, 0), pyRound(4.5, 0), pyRound(0.25, 1), pyRound(0.35, 1), pyRound(2.675, 2), pyRound(10.0, 0), pyRound(-2.5, 0), pyRound(7.45, 1)]).toEqual([6, 4, 0.2, 0.3, 2.67, 10, -2, 7.5]);
  });
});

describe("agreement with CPython (testdata/python_numbers.json, made by make_python_numbers.py)", () => {
  const fixture = JSON.parse(readFileSync(fileURLToPath(new URL("./testdata/python_numbers.json", import.meta.url)), "utf8")) as { float: Array<[string, number | string | null]>; round: Array<[number, number, number]> };
  const decode = (v: number | string | null) => (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : v);
  it("float(text.strip()) on every case", () => {
    expect(fixture.float.map(([text]) => pyFloat(text.trim()))).toEqual(fixture.float.map(([, v]) => decode(v)));
  });
  it("round(x, n) on every case", () => {
    expect(fixture.round.map(([x, n]) => pyRound(x, n))).toEqual(fixture.round.map(([, , v]) => v));
  });
});

describe("scoring and reward rules", () => {
  const out = (score: number, test_name?: string) => ({ score, ...(test_name ? { test_name } : {}) });
  it("scores a min subtask by its worst test times its score (rounded), a sum_tests one by tests above 0", () => {
    expect(aggregateSubtask({ aggregation: "min", score: 11, test_names: [] }, [out(1), out(0.5)], false)).toBe(6); // round(5.5)
    expect(aggregateSubtask({ aggregation: "min", score: 11, test_names: [] }, [out(1), out(1)], true)).toBe(0);
    expect(aggregateSubtask({ aggregation: "min", score: 11, test_names: [] }, [], false)).toBe(0);
    expect(aggregateSubtask({ aggregation: "sum_tests", test_names: [] }, [out(1), out(0.1), out(0)], false)).toBe(2);
    expect(() => aggregateSubtask({ aggregation: "max", test_names: [] }, [], false)).toThrow("Unsupported aggregation: max");
  });

  const result = (scores: Record<string, number>, outputs: Record<string, Array<{ score: number; test_name?: string }>> = {}): Partial<EntryResult> => ({
    test_case_results: Object.fromEntries(Object.entries(scores).map(([k, score]) => [k, { score, outputs: outputs[k] ?? [] }])),
  });
  const pairs = { problem_id: "pairs", competition_id: "ioi_mini" };
  it("binary: full marks on the row's subtask (row's subtask_score first, then the file's)", () => {
    expect(binaryReward({ ...pairs, subtask: "small" }, result({ small: 30 }), md)).toBe(1);
    expect(binaryReward({ ...pairs, subtask: "small" }, result({ small: 15 }), md)).toBe(0); // partial marks: trap
    expect(binaryReward({ ...pairs, subtask: "small", subtask_score: 10 }, result({ small: 15 }), md)).toBe(1);
    // A cap of 0 is never reached; an unknown cap needs any score.
    expect(binaryReward({ ...pairs, subtask: "small", subtask_score: 0 }, result({ small: 15 }), md)).toBe(0);
    expect(binaryReward({ problem_id: "zz", subtask: "s" }, result({ s: 0.1 }), md)).toBe(1);
    expect(binaryReward({ problem_id: "zz", subtask: "s" }, result({ s: 0 }), md)).toBe(0);
    expect(binaryReward({ ...pairs, subtask: "count" }, result({ count: 3 }), md)).toBe(0);
    expect(binaryReward({ ...pairs, subtask: "count" }, result({ count: 4 }), md)).toBe(1);
  });
  it("binary: a whole problem needs the sum of every subtask's maximum", () => {
    expect(binaryReward({ ...pairs, subtask: null }, result({ small: 30, full: 70, count: 4 }), md)).toBe(1);
    expect(binaryReward({ ...pairs, subtask: null }, result({ small: 30, full: 70, count: 3 }), md)).toBe(0);
    // Problem unknown to the file: every subtask must score (none at all counts as every one).
    expect(binaryReward({ problem_id: "zz" }, result({ a: 1, b: 0.5 }), md)).toBe(1);
    expect(binaryReward({ problem_id: "zz" }, result({ a: 1, b: 0 }), md)).toBe(0);
    expect(binaryReward({ problem_id: "zz" }, result({}), md)).toBe(1);
  });
  it("fraction: tests scoring 1 among the subtask's, or every distinct test's", () => {
    expect(fractionReward({ ...pairs, subtask: "small" }, result({ small: 0 }, { small: [out(1, "a"), out(0.5, "b")] }))).toBe(0.5);
    expect(fractionReward({ ...pairs, subtask: null }, result({ s1: 0, s2: 0 }, { s1: [out(1, "a"), out(0, "b")], s2: [out(1, "a"), out(1, "c"), out(1), out(1)] }))).toBe(4 / 5);
    expect(fractionReward({ ...pairs, subtask: "small" }, result({ small: 0 }))).toBe(0);
  });
});

describe("metrics override", () => {
  const row = (task: number, rollout: number, problem_id: string, results: Record<string, number>) => ({
    _ng_task_index: task, _ng_rollout_index: rollout, reward: 0, problem_id, competition_id: "ioi_mini",
    details: { test_case_results: Object.fromEntries(Object.entries(results).map(([k, score]) => [k, { score, outputs: [] }])) },
  });
  it("gives pass@k of accuracy, the best subtask scores per problem summed into total_score, and NeMo Gym's key metrics", () => {
    const rows = [row(0, 0, "pairs", { small: 30, full: 0 }), row(0, 1, "pairs", { small: 15, full: 35.5 }), row(1, 0, "other", { s: 0 }), row(1, 1, "other", {})];
    const result = cccAggregate(rows, aggregateMetrics(rows), md);
    expect(result.agent_metrics).toMatchObject({ "pass@1/accuracy": 25, "pass@2/accuracy": 50, "pass@1[avg-of-2]/accuracy": 25, "pass@1/no_answer": 100, "majority@2/accuracy": 0, total_score: 65 });
    expect((result.agent_metrics as Record<string, unknown>).per_problem_subtask_scores).toEqual({
      pairs: { total: { score: 65.5, max_score: 100 }, subtasks: { small: { score: 30, max_score: 30 }, full: { score: 35.5, max_score: 70 } } },
      other: { total: { score: 0, max_score: 0 }, subtasks: {} },
    });
    expect(result.key_metrics).toEqual({ "pass@1[avg-of-2]/accuracy": 25, "pass@2/accuracy": 50, total_score: 65 });
  });
});

describe("/verify graded in the sandbox on repository-made problems", () => {
  let env: RunningInstance;
  let fraction: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(ccc, { config: { test_file: TEST_FILE, compile_cache_dir: BUILDS } });
    // Batches of 2: a row's tests in several runs, all on the row's one build.
    fraction = await startInstance(ccc, { config: { test_file: TEST_FILE, reward_mode: "fraction", test_batch_size: 2, compile_cache_dir: BUILDS } });
  });
  afterAll(async () => {
    await env?.close();
    await fraction?.close();
  });
  const verify = (instance: RunningInstance, fields: Record<string, unknown>, text: string) =>
    instance.request("/verify", { responses_create_params: { input: "x" }, response: responseWith([assistantMessage(text)]), ...fields }).then((r) => r.body);
  const mex = { competition_id: "usaco25", problem_id: "makingmexes", subtask: "all_tests", subtask_score: 11 };

  it("rewards a correct solution (every test run, scored by the problem's run.sh) and not a wrong or broken one", async () => {
    const [right, wrong, broken] = await Promise.all([verify(env, mex, cpp(MEX)), verify(env, mex, cpp(ZERO)), verify(env, mex, cpp("int main(){ return x; }"))]);
    expect(right).toMatchObject({ reward: 1, name: "makingmexes", num_tests_run: 11, details: { name: "makingmexes", subtask: "all_tests", test_case_results: { all_tests: { score: 11 } } } });
    const outputs = right.details.test_case_results.all_tests.outputs;
    expect(outputs.map((o: any) => [o.test_name, o.test_group, o.score, o.run_stdout, o.compile_success])).toEqual(Object.keys(md.problem("makingmexes", "usaco25").all_tests).map((t) => [t, t.startsWith("sample") ? "sample" : "secret", 1, "1\n", true]));
    expect(outputs[0].compile_stdout).toMatch(/^No checker found at .*\nCompiled makingmexes from graders\/makingmexes.cpp successfully\nManager files: grader_config.json makingmexes.cpp\n$/);
    expect(right.total_test_execution_time_s).toBeGreaterThan(0);
    // Printing 0 is right for some tests only: the subtask's min makes it 0.
    expect(wrong).toMatchObject({ reward: 0, num_tests_run: 11, details: { test_case_results: { all_tests: { score: 0 } } } });
    // Every test of the batch ran, but a "min" subtask keeps results only up to its first failure.
    expect(wrong.details.test_case_results.all_tests.outputs.map((o: any) => [o.test_name, o.score, o.run_stderr])).toEqual([["sample-01", 0, "Output isn't correct (diff)\n"]]);
    // A compile error (anything on compile's stderr) fails every test without running it.
    expect(broken).toMatchObject({ reward: 0, num_tests_run: 0, total_test_execution_time_s: 0, mean_test_execution_time_s: 0 });
    const failed = broken.details.test_case_results.all_tests.outputs;
    expect(failed).toHaveLength(1); // the first failure ends what a "min" subtask keeps
    expect(failed[0]).toMatchObject({ compile_success: false, run_stdout: "", run_stderr: "", error: "", score: 0 });
    expect(failed[0].compile_stderr).toMatch(/x. was not declared/);
    // Two clean builds kept (the failed compilation is not).
    expect(builds()).toHaveLength(2);
  }, 240_000);

  it("scores subtasks: partial credit, min over tests, sum_tests, the whole problem, and the fraction mode", async () => {
    const pairs = { competition_id: "ioi_mini", problem_id: "pairs" };
    const [int, sum, whole, fullFraction] = await Promise.all([
      verify(env, { ...pairs, subtask: "full" }, cpp(PAIRS_INT)),
      verify(env, { ...pairs, subtask: "small" }, cpp(PAIRS_SUM)),
      verify(env, { ...pairs, subtask: null }, cpp(PAIRS_FULL)),
      verify(fraction, { ...pairs, subtask: "full" }, cpp(PAIRS_INT)),
    ]);
    // int overflows a*b on the big tests (2-0x score 0.5): a test below 1 fails a "min" subtask outright
    // (no partial marks), while sum_tests counts every test above 0.
    expect(int).toMatchObject({ reward: 0, num_tests_run: 4, details: { test_case_results: { full: { score: 0 }, small: { score: 30 }, count: { score: 4 } } } });
    expect(int.details.test_case_results.full.outputs.map((o: any) => [o.test_name, o.score])).toEqual([["1-01", 1], ["1-02", 1], ["2-01", 0.5]]);
    // Only the row's subtask's tests run, but every subtask that has them is scored.
    expect(sum).toMatchObject({ reward: 0, num_tests_run: 2, details: { test_case_results: { small: { score: 0 }, full: { score: 0 }, count: { score: 2 } } } });
    expect(whole).toMatchObject({ reward: 1, num_tests_run: 4, details: { subtask: null, test_case_results: { small: { score: 30 }, full: { score: 70 }, count: { score: 4 } } } });
    // The fraction mode keeps every result: 2 of 4 tests scored 1.
    expect(fullFraction).toMatchObject({ reward: 0.5, num_tests_run: 4, details: { test_case_results: { full: { score: 0 } } } });
    expect(fullFraction.details.test_case_results.full.outputs).toHaveLength(4);
  }, 240_000);

  it("grades from the build kept for the program and problem: not compiled anew", async () => {
    const problem = md.problem("pairs", "ioi_mini");
    const buildOf = (code: string) => join(BUILDS, `${buildKeyOf(problem, submissionFor(problem, "pairs", cpp(code)))}.build`);
    const saved = readFileSync(buildOf(PAIRS_FULL));
    // PAIRS_SUM's build under PAIRS_FULL's key (with the memory emptied, the file is what is found):
    // PAIRS_FULL's answer is then graded as PAIRS_SUM's program.
    copyFileSync(buildOf(PAIRS_SUM), buildOf(PAIRS_FULL));
    forgetBuilds();
    try {
      const swapped = await verify(env, { competition_id: "ioi_mini", problem_id: "pairs", subtask: "small" }, cpp(PAIRS_FULL));
      expect(swapped).toMatchObject({ reward: 0, num_tests_run: 2, details: { test_case_results: { small: { score: 0 } } } });
    } finally {
      writeFileSync(buildOf(PAIRS_FULL), saved);
      forgetBuilds();
    }
  }, 240_000);

  it("grades the older problem shape, and answers an unknown problem with reward 0 and the error", async () => {
    const [hello, bad] = await Promise.all([
      verify(env, { competition_id: "old_contest", problem_id: "hello", subtask: "hard" }, cpp('int main(){cout<<"hello"<<endl;}')),
      verify(env, { competition_id: "usaco25", problem_id: "nope", subtask: "all_tests" }, cpp(MEX)),
    ]);
    expect(hello).toMatchObject({ reward: 1, num_tests_run: 2, details: { test_case_results: { hard: { score: 6 }, easy: { score: 4 } } } });
    expect(bad).toMatchObject({ reward: 0, num_tests_run: 0, details: { error: "Problem 'nope' not found in competition 'usaco25'. Available problems: [\"makingmexes\"]" } });
  }, 240_000);
});

// NeMo Gym's rows name the agent "simple_agent", which its README adds next to the config (simple_agent's
// own config, pointed at this server); these overrides add the same agent.
const SIMPLE_AGENT = [
  "+simple_agent.responses_api_agents.simple_agent.resources_server.type=resources_servers",
  `+simple_agent.responses_api_agents.simple_agent.resources_server.name=${ID}_resources_server`,
  "+simple_agent.responses_api_agents.simple_agent.model_server.type=responses_api_models",
  "+simple_agent.responses_api_agents.simple_agent.model_server.name=policy_model",
];

describe("the sandbox's cpp language", () => {
  it("compiles C++17 and runs it on stdin; a compile error exits 1 with the compiler's message", async () => {
    const sandbox = await sharedSandbox();
    const ok = await sandbox.run({ ...programFor("cpp", "#include <bits/stdc++.h>\nint main(){int a,b;std::cin>>a>>b;auto [x,y]=std::pair{a+b,a*b};std::cout<<x<<' '<<y<<'\\n';}"), stdin: "3 4\n", limits: { wallMs: 120_000 } });
    expect([ok.status, ok.exitCode, ok.stdout]).toEqual(["ok", 0, "7 12\n"]);
    const bad = await sandbox.run({ ...programFor("cpp", "int main(){ return y; }"), limits: { wallMs: 120_000 } });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/y. was not declared/);
  }, 240_000);
});

describe("NeMo Gym's config and recorded rollouts", () => {
  let dir: string;
  let engine: FakeEngine;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-ccc-"));
    // The five example rows share one prompt: the engine answers them in turn with a correct solution,
    // then four of NeMo Gym's recorded answers.
    const answers = [cpp(MEX), ...recorded.slice(0, 4).map((r) => r.response.output.at(-1).content[0].text as string)];
    let next = 0;
    engine = await startFakeEngine({ policy: () => ({ text: answers[next++ % answers.length]! }) });
  });
  afterAll(async () => {
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs configs/competitive_coding_challenges.yaml unchanged on example.jsonl (CCC_TEST_FILE = the repository's file), with NeMo Gym's metrics", async () => {
    // MEX's build (kept by the /verify tests above) cut short: a damaged build file is no build, so
    // this run compiles MEX again and keeps it whole.
    const problem = md.problem("makingmexes", "usaco25");
    const mexBuild = join(BUILDS, `${buildKeyOf(problem, submissionFor(problem, "makingmexes", cpp(MEX)))}.build`);
    const whole = (bytes: Buffer) => {
      const newline = bytes.indexOf(0x0a);
      return newline > 0 && (JSON.parse(bytes.subarray(0, newline).toString("utf8")) as { tarBytes?: number }).tarBytes === bytes.length - newline - 1;
    };
    const kept = readFileSync(mexBuild);
    writeFileSync(mexBuild, kept.subarray(0, kept.length - 100));
    expect(whole(readFileSync(mexBuild))).toBe(false);
    const checkout = nemoGymCheckout([ID]);
    try {
      const out = join(dir, "run.jsonl");
      const result = await runGym(
        ["eval", "run", "--config", `resources_servers/${ID}/configs/${ID}.yaml`, "--input", `resources_servers/${ID}/data/example.jsonl`, ...SIMPLE_AGENT, `++${ID}_resources_server.resources_servers.${ID}.compile_cache_dir=${BUILDS}`, "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-o", out, "--quiet"],
        { cwd: checkout.root, timeoutMs: 300_000, env: { CCC_TEST_FILE: TEST_FILE } },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(whole(readFileSync(mexBuild))).toBe(true);
      const rows = readJsonlFile(out);
      expect(rows).toHaveLength(5);
      expect(rows.map((r) => r.reward).sort()).toEqual([0, 0, 0, 0, 1]);
      expect(rows.every((r) => r.num_tests_run === 11 && r.subtask_score === 11 && r.name === "A-makingmexes")).toBe(true);
      const [metrics] = JSON.parse(readFileSync(out.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      // The five identical rows are one task with five rollouts, one of them correct.
      expect(rows.map((r) => r._ng_task_index)).toEqual([0, 0, 0, 0, 0]);
      expect(metrics!.agent_metrics).toMatchObject({ "mean/reward": 0.2, "pass@5/accuracy": 100, "pass@1[avg-of-5]/accuracy": 20, "majority@5/accuracy": 0, total_score: 11 });
      expect(metrics!.agent_metrics["pass@1/accuracy"]).toBeCloseTo(20, 9);
      // The environment's /aggregate_metrics returns per_problem_subtask_scores (see "metrics override"
      // above), but the collector's chunk merge keeps numeric agent metrics only: not in the file yet.
      expect(metrics!.agent_metrics.per_problem_subtask_scores).toBeUndefined();
      expect(metrics!.key_metrics).toEqual({ "pass@1[avg-of-5]/accuracy": 20, "pass@5/accuracy": 100, total_score: 11 });
    } finally {
      checkout.remove();
    }
  }, 400_000);

  it("re-verifies NeMo Gym's recorded rollouts to their rewards on the repository's stand-in for makingmexes", async () => {
    const { result, recorded: rewards, reverified, rows } = await reverifyRecorded(ID, ["--resources-server", ID, `+${ID}.resources_servers.${ID}.test_file=${TEST_FILE}`, `+${ID}.resources_servers.${ID}.compile_cache_dir=${BUILDS}`]);
    expect(result.code, result.stderr).toBe(0);
    expect(rewards).toEqual([0, 0, 0, 0, 0]);
    expect(reverified).toEqual(rewards);
    // Every test ran (one batch), every one compiled. Stale detail of the recorded file: its outputs list
    // all 11 tests, which NeMo Gym's code at 07d6b0d keeps only with reward_mode "fraction"; in the
    // config's "binary" mode a "min" subtask keeps results up to its first failure, a prefix of them.
    expect(rows.map((r) => r?.num_tests_run)).toEqual(recorded.map((r) => r.num_tests_run));
    rows.forEach((r, i) => {
      const names = r?.details.test_case_results.all_tests.outputs.map((o: any) => o.test_name);
      expect(names.length).toBeGreaterThan(0);
      expect(names).toEqual(recorded[i]!.details.test_case_results.all_tests.outputs.slice(0, names.length).map((o: any) => o.test_name));
    });
    expect(rows.every((r) => r?.details.test_case_results.all_tests.outputs.every((o: any) => o.compile_success))).toBe(true);
  }, 300_000);

  it.skipIf(!process.env.CCC_TEST_FILE)("re-verifies the recorded rollouts on the real test file (CCC_TEST_FILE)", async () => {
    const { result, recorded: rewards, reverified, rows } = await reverifyRecorded(ID, ["--resources-server", ID, `+${ID}.resources_servers.${ID}.test_file=${process.env.CCC_TEST_FILE}`]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(rewards);
    // The recorded outputs were kept past the first failure (see above): compare the binary mode's prefix.
    const triples = (r: any) => r.details.test_case_results.all_tests.outputs.map((o: any) => [o.test_name, o.score, o.run_stderr]);
    expect(rows.map((r) => triples(r))).toEqual(recorded.map((r, i) => triples(r).slice(0, triples(rows[i]).length)));
  }, 600_000);
});
