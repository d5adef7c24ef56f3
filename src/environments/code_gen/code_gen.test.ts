// code_gen graded like LiveCodeBench: extraction, the stdin/stdout and call-based comparisons, the
// NeMo Gym spec's cases through the real /verify route, the shared example problems with correct and
// broken solutions in both test modes, and the proof that the batched harness cannot be tampered with.
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import codeGen from "./index.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { sharedSandbox } from "../../sandbox/shared.js";
import { processesOfUid } from "../../sandbox/uids.js";
import { extractCode } from "../../verifiers/code/extract.js";
import { callResultMatches } from "../../verifiers/code/judge.js";
import { isClose, parsePyJson, pyDumpsEqual, pyEquals, pyFloat, pyFloatRepr, pyRepr } from "../../verifiers/code/python_values.js";
import { runUnitTests, type UnitTests } from "../../verifiers/code/run_tests.js";
import { gradeStdio } from "../../verifiers/code/stdio.js";
import { NEMO_GYM_EXAMPLES } from "../../../test/helpers/cli.js";

const fenced = (code: string, before = "Here is my solution.") => `${before}\n\`\`\`python\n${code}\n\`\`\`\n`;

describe("extraction", () => {
  it("takes the lines between the last two fence lines, whatever their tags", () => {
    expect(extractCode(fenced("print(1)"))).toBe("print(1)");
    expect(extractCode("```\nold()\n```\ntext\n```py\nnew()\nmore()\n```")).toBe("new()\nmore()");
    expect(extractCode("a ``` b\ncode\nc ``` d")).toBe("code");
    expect(extractCode("no fences here")).toBeNull();
    expect(extractCode("```python\nunclosed")).toBeNull();
    expect(extractCode("```\n```")).toBeNull();
  });
});

describe("stdin/stdout comparison", () => {
  it("compares stripped lines exactly or as exact decimals", () => {
    expect(gradeStdio("4\n25\n", "4\n25")).toEqual({ pass: true });
    expect(gradeStdio("  1 2 3  \n\n", "1 2 3")).toEqual({ pass: true });
    expect(gradeStdio("1.0 1e2 -0\n", "1 100 0")).toEqual({ pass: true });
    expect(gradeStdio("0.30000001", "0.3")).toEqual({ pass: false, message: "Wrong answer at output_line_idx=0: 0.30000001 != 0.3" });
    expect(gradeStdio("4\n", "9")).toEqual({ pass: false, message: "Wrong answer at output_line_idx=0: 4 != 9" });
    expect(gradeStdio("1\n2", "1")).toEqual({ pass: false, message: "Wrong answer: mismatched output length" });
    expect(gradeStdio("YES", "yes").pass).toBe(false);
    expect(gradeStdio("1 2", "1 2 3").pass).toBe(false);
    expect(gradeStdio("nan", "nan")).toEqual({ pass: true }); // equal as strings first
    expect(gradeStdio("nan 1", "NaN 1").pass).toBe(false); // Decimal NaN equals nothing
    expect(gradeStdio("1_000", "1000")).toEqual({ pass: true }); // Decimal accepts underscores
  });
});

describe("call-based comparison (Python semantics)", () => {
  const v = parsePyJson;
  it("parses json.loads values with exact ints and NaN/Infinity", () => {
    expect(pyRepr(v('{"a": [1, 2.5, true, null, "x"]}'))).toBe("{'a': [1, 2.5, True, None, 'x']}");
    expect(pyRepr(v("123456789012345678901234567890"))).toBe("123456789012345678901234567890");
    expect(pyRepr(v("[NaN, -Infinity]"))).toBe("[nan, -inf]");
    expect(() => v("[1,]")).toThrow();
  });
  it("== like Python: ints exact, 1 == 1.0 == True, NaN never, dicts unordered", () => {
    expect(pyEquals(v("1"), v("1.0"))).toBe(true);
    expect(pyEquals(v("true"), v("1"))).toBe(true);
    expect(pyEquals(v("9007199254740993"), v("9007199254740992.0"))).toBe(false);
    expect(pyEquals(v("NaN"), v("NaN"))).toBe(false);
    expect(pyEquals(v('{"a": 1, "b": 2}'), v('{"b": 2, "a": 1}'))).toBe(true);
    expect(pyEquals(v('"1"'), v("1"))).toBe(false);
  });
  it("json.dumps equality: types and order matter, NaN equals NaN", () => {
    expect(pyDumpsEqual(v("NaN"), v("NaN"))).toBe(true);
    expect(pyDumpsEqual(v("1"), v("1.0"))).toBe(false);
    expect(pyDumpsEqual(v('{"a": 1, "b": 2}'), v('{"b": 2, "a": 1}'))).toBe(false);
  });
  it("float() and closeness", () => {
    expect(pyFloat(v('" 1_5.5 "'))).toBe(15.5);
    expect(pyFloat(v('"inf"'))).toBe(Infinity);
    expect(pyFloat(v("[1]"))).toBeNull();
    expect(isClose(1.000001, 1)).toBe(true);
    expect(isClose(1.001, 1)).toBe(false);
    expect(callResultMatches({ kind: "result", json: "0.3333333", float: null }, v("0.3333333333"))).toBe(true);
    expect(callResultMatches({ kind: "result", json: '"2.0"', float: null }, v("2"))).toBe(true); // float("2.0") is close to 2
    expect(callResultMatches({ kind: "result", json: null, float: 0.5 }, v("0.5"))).toBe(true); // e.g. a Fraction
    expect(callResultMatches({ kind: "result", json: "[1, 2]", float: null }, v("[1, 3]"))).toBe(false);
  });
  it("Python float repr", () => {
    expect([1e16, 1e15, 0.0001, 0.00001, 1.5e-7, 0.1, 2.5, -0].map(pyFloatRepr)).toEqual(["1e+16", "1000000000000000.0", "0.0001", "1e-05", "1.5e-07", "0.1", "2.5", "-0.0"]);
  });
});

/**
 * For the tests that run hundreds of sandboxed programs (per_test mode runs one per unit test):
 * some 30-40 s alone on two cores, so the default 60 s is no margin on a busy machine.
 */
const MANY_RUNS_TIMEOUT_MS = 300_000;

/** Verifications a test started and has not seen answered yet. */
const inFlight = new Set<Promise<unknown>>();

/**
 * The instance, with every request it is sent tracked until answered: a test cut by its timeout
 * leaves its verifications running in the sandbox, and the next test must not start beside them
 * (it would find their processes and share the cores with them).
 */
function tracked(instance: RunningInstance): RunningInstance {
  return {
    ...instance,
    request(...args) {
      const reply = instance.request(...args);
      inFlight.add(reply);
      void reply.finally(() => inFlight.delete(reply)).catch(() => undefined);
      return reply;
    },
  };
}

let env: RunningInstance;
let perTestEnv: RunningInstance;
beforeAll(async () => {
  env = tracked(await startInstance(codeGen, { config: { unit_test_timeout_secs: 2 } }));
  perTestEnv = tracked(await startInstance(codeGen, { name: "code_gen_per_test", config: { unit_test_timeout_secs: 2, test_mode: "per_test" } }));
});
afterEach(async () => {
  await Promise.allSettled([...inFlight]);
}, MANY_RUNS_TIMEOUT_MS);
afterAll(async () => {
  await env?.close();
  await perTestEnv?.close();
  const sandbox = await sharedSandbox();
  expect(sandbox.uids.flatMap((uid) => processesOfUid(uid))).toEqual([]);
});

function verifyBody(text: string, unitTests: UnitTests, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    responses_create_params: { input: "Solve it." },
    verifier_metadata: { unit_tests: unitTests },
    response: responseWith(text ? [assistantMessage(text)] : []),
    ...extra,
  };
}

describe("code_gen /verify (the NeMo Gym spec's cases)", () => {
  const square: UnitTests = { inputs: ["2\n", "5\n"], outputs: ["4", "25"], fn_name: null };

  for (const [name, instance] of [["batched", () => env], ["per_test", () => perTestEnv]] as const) {
    it(`grades a correct, a wrong, an unfenced, a broken and a crashing answer (${name})`, async () => {
      const ok = await instance().request("/verify", verifyBody(fenced("n=int(input())\nprint(n*n)"), square));
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ reward: 1.0, result: [true, true], extracted_model_code: "n=int(input())\nprint(n*n)", reasoning_format_violation_rate: 0 });
      expect(ok.body.metadata["execution time"]).toBeGreaterThanOrEqual(0);

      const wrong = await instance().request("/verify", verifyBody(fenced("n=int(input())\nprint(n+1)"), { inputs: ["3\n"], outputs: ["9"] }));
      expect(wrong.body).toMatchObject({ reward: 0.0, result: [-2], metadata: { error_code: -2, error_message: "Wrong answer at output_line_idx=0: 4 != 9" } });

      const unfenced = await instance().request("/verify", verifyBody("n=int(input())\nprint(n*n)", square));
      expect(unfenced.body).toMatchObject({ reward: 0.0, extracted_model_code: null, extracted_model_output: "n=int(input())\nprint(n*n)" });

      const syntax = await instance().request("/verify", verifyBody(fenced("print('hello'"), square));
      expect(syntax.body).toMatchObject({
        reward: 0.0,
        result: [-4],
        metadata: { error_code: -4, error_message: "Error during testing: '(' was never closed (<string>, line 1)" },
      });

      const crash = await instance().request("/verify", verifyBody(fenced("n=int(input())\nprint(n/0)"), square));
      expect(crash.body).toMatchObject({ reward: 0.0, result: [-4], metadata: { error_code: -4, error_message: "Runtime Error", error: "ZeroDivisionError('division by zero')" } });
    });
  }

  it("gives an empty answer 0 with only difficulty set, and 500s without unit tests", async () => {
    const empty = await env.request("/verify", verifyBody("", square, { verifier_metadata: { unit_tests: square, difficulty: "easy" } }));
    expect(empty.body).toMatchObject({ reward: 0.0, difficulty: "easy", result: null, extracted_model_code: null });
    const missing = await env.request("/verify", { responses_create_params: { input: "x" }, response: responseWith([assistantMessage(fenced("print(1)"))]) });
    expect(missing.status).toBe(500);
  });

  it("times out a slow test (-3), stops at the first failure, and drops undeclared row fields", async () => {
    const slow = await env.request(
      "/verify",
      verifyBody(fenced("n=int(input())\nif n == 2:\n    while True: pass\nprint(n*n)"), { inputs: ["1\n", "2\n", "3\n"], outputs: ["1", "4", "9"] }, { hash_id: "abc" }),
    );
    expect(slow.body).toMatchObject({ reward: 0.0, result: [true, -3], metadata: { error_code: -3, error_message: "Time Limit Exceeded" } });
    expect(slow.body).not.toHaveProperty("hash_id");
  });

  it("grades call-based tests: Solution class, tuples as lists, floats close, wrong answers false", async () => {
    const tests: UnitTests = { inputs: ["[1, 2]\n3", "[]\n0"], outputs: ["[1, 2, 3]", "[0]"], fn_name: "append" };
    const cls = await env.request("/verify", verifyBody(fenced("class Solution:\n    def append(self, xs, x):\n        return tuple(xs + [x])"), tests));
    expect(cls.body).toMatchObject({ reward: 1.0, result: [true, true] });
    const fn = await env.request("/verify", verifyBody(fenced("def append(xs, x):\n    return xs"), tests));
    expect(fn.body).toMatchObject({ reward: 0.0, result: [false], metadata: { error_code: -2, error_message: "Wrong Answer", output: "[1, 2]", expected: "[1, 2, 3]" } });
    const close = await env.request("/verify", verifyBody(fenced("def third(x):\n    return x / 3"), { inputs: ["1"], outputs: ["0.333333"], fn_name: "third" }));
    expect(close.body).toMatchObject({ reward: 1.0 });
  });

  it("penalises think tags in the answer", async () => {
    const penalised = await startInstance(codeGen, { name: "code_gen_penalty", config: { reasoning_format_penalty: -0.5 } });
    try {
      const body = verifyBody(`<think>hmm</think>\n${fenced("n=int(input())\nprint(n*n)")}`, square);
      expect((await penalised.request("/verify", body)).body).toMatchObject({ reward: -0.5, reasoning_format_violation_rate: 1.0, result: [true, true] });
    } finally {
      await penalised.close();
    }
  });
});

describe("code_gen /aggregate_metrics", () => {
  it("reports accuracy pass@k, majority@k on the extracted code, and per difficulty", async () => {
    const row = (task: number, rollout: number, reward: number, difficulty: string, code: string | null) => ({
      _ng_task_index: task,
      _ng_rollout_index: rollout,
      reward,
      difficulty,
      extracted_model_code: code,
      response: { usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 } },
    });
    const rows = [row(0, 0, 1, "easy", "a"), row(0, 1, 0, "easy", "b"), row(1, 0, 0, "hard", null), row(1, 1, 0, "hard", "c")];
    const { body } = await env.request("/aggregate_metrics", { verify_responses: rows });
    expect(body.agent_metrics["pass@1[avg-of-2]/accuracy"]).toBe(25);
    expect(body.agent_metrics["pass@2/accuracy"]).toBe(50);
    expect(body.agent_metrics["pass@1[avg-of-2]/accuracy/avg_sample_std_dev"]).toBeCloseTo((100 * Math.SQRT1_2) / 2, 6);
    expect(body.agent_metrics["easy/pass@1[avg-of-2]/accuracy"]).toBe(50);
    expect(body.agent_metrics["hard/pass@2/accuracy"]).toBe(0);
    expect(Object.keys(body.key_metrics).sort()).toEqual(
      [
        "mean/input_tokens",
        "mean/output_tokens",
        "pass@1[avg-of-2]/accuracy",
        "pass@2/accuracy",
        "majority@2/accuracy",
        "easy/pass@1[avg-of-2]/accuracy",
        "hard/pass@1[avg-of-2]/accuracy",
      ].sort(),
    );
  });
});

/** Solutions to the five shared example problems (all stdin/stdout, 1 to 100 tests each). */
const SOLUTIONS: string[] = [
  // 0: binary words, minimum reversals so that they can be chained.
  `import sys
def main():
    data = sys.stdin.read().split()
    t = int(data[0]); pos = 1; out = []
    for _ in range(t):
        n = int(data[pos]); pos += 1
        words = data[pos:pos + n]; pos += n
        present = set(words)
        count = {"00": 0, "01": 0, "10": 0, "11": 0}
        for w in words:
            count[w[0] + w[-1]] += 1
        if count["01"] == 0 and count["10"] == 0:
            if count["00"] > 0 and count["11"] > 0:
                out.append("-1")
            else:
                out.append("0"); out.append("")
            continue
        chosen = []
        for kind, other in (("01", "10"), ("10", "01")):
            need = (count[kind] - count[other]) // 2
            for i, w in enumerate(words):
                if need <= 0:
                    break
                if w[0] + w[-1] == kind and w[::-1] not in present:
                    chosen.append(i + 1); need -= 1
        out.append(str(len(chosen)))
        out.append(" ".join(map(str, chosen)) + " ")
    print("\\n".join(out))
main()`,
  // 1: maximum diagonal moves.
  `q = int(input())
for _ in range(q):
    n, m, k = map(int, input().split())
    if max(n, m) > k:
        print(-1)
    elif n % 2 != m % 2:
        print(k - 1)
    elif k % 2 == n % 2:
        print(k)
    else:
        print(k - 2)`,
  // 2: pick p_i from {a_i, b_i, c_i} with no equal neighbours (cyclic), greedily.
  `t = int(input())
for _ in range(t):
    n = int(input())
    a = list(map(int, input().split())); b = list(map(int, input().split())); c = list(map(int, input().split()))
    p = [a[0]]
    for i in range(1, n):
        for x in (a[i], b[i], c[i]):
            if x != p[-1] and (i != n - 1 or x != p[0]):
                p.append(x)
                break
    print(*p)`,
  // 3: barrels, pour at most k times.
  `import sys
input = sys.stdin.readline
t = int(input())
for _ in range(t):
    n, k = map(int, input().split())
    a = sorted(map(int, input().split()), reverse=True)
    print(sum(a[:k + 1]))`,
  // 4: beautiful numbers in a permutation.
  `t = int(input())
for _ in range(t):
    n = int(input())
    p = list(map(int, input().split()))
    pos = [0] * (n + 1)
    for i, v in enumerate(p):
        pos[v] = i
    lo, hi, res = n, -1, []
    for m in range(1, n + 1):
        lo = min(lo, pos[m]); hi = max(hi, pos[m])
        res.append("1" if hi - lo + 1 == m else "0")
    print("".join(res))`,
];

const exampleRows = readFileSync(`${NEMO_GYM_EXAMPLES}/code_gen/example.jsonl`, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as Record<string, any>);

describe("the shared example problems", () => {
  it("grades correct solutions as passing in both modes", async () => {
    for (const instance of [env, perTestEnv]) {
      const replies = await Promise.all(
        exampleRows.map((row, i) => instance.request("/verify", { ...row, response: responseWith([assistantMessage(fenced(SOLUTIONS[i]!))]) })),
      );
      const results = replies.map((reply) => reply.body.result as unknown[]);
      for (const i of [0, 1, 3, 4]) {
        expect(replies[i]!.body.reward).toBe(1.0);
        expect(results[i]).toEqual(Array(exampleRows[i]!.verifier_metadata.unit_tests.inputs.length).fill(true));
      }
      // Row 2's tests disagree on the format: its first two expect one line per case, the rest one
      // line for all cases, so no single program passes them all; LiveCodeBench says exactly this.
      expect(results[2]).toEqual([true, true, -2]);
      expect(replies[2]!.body.metadata.error_message).toBe("Wrong answer: mismatched output length");
    }
  }, MANY_RUNS_TIMEOUT_MS);

  it("grades broken solutions as failing, with LiveCodeBench's codes", async () => {
    const row = exampleRows[1]!; // 97 tests
    const broken: Array<[string, unknown[]]> = [
      [SOLUTIONS[1]!.replace("print(k - 1)", "print(k)"), [-2]], // wrong answer on some test
      [SOLUTIONS[1]!.replace("q = int(input())", "q = int(input())\nimport time\ntime.sleep(30)"), [-3]],
      [SOLUTIONS[1]!.replace("print(-1)", "print(-1 // 0)"), [-4]],
      [SOLUTIONS[1]!.replace("for _ in range(q):", "for _ in range(q)"), [-4]],
    ];
    for (const instance of [env, perTestEnv]) {
      for (const [code, tail] of broken) {
        const reply = await instance.request("/verify", { ...row, response: responseWith([assistantMessage(fenced(code))]) });
        expect(reply.body.reward).toBe(0.0);
        expect((reply.body.result as unknown[]).slice(-1)).toEqual(tail);
        expect((reply.body.result as unknown[]).slice(0, -1).every((r) => r === true)).toBe(true);
      }
    }
  }, MANY_RUNS_TIMEOUT_MS);

  it("grades many rollouts in parallel without leaking processes", async () => {
    const row = exampleRows[4]!;
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        env.request("/verify", { ...row, response: responseWith([assistantMessage(fenced(i % 3 === 0 ? "print(1/0)" : SOLUTIONS[4]!))]) }),
      ),
    );
    expect(replies.map((r) => r.body.reward)).toEqual(Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 0 : 1)));
    const sandbox = await sharedSandbox();
    expect(sandbox.uids.flatMap((uid) => processesOfUid(uid))).toEqual([]);
  }, MANY_RUNS_TIMEOUT_MS);
});

describe("the batched harness cannot be tampered with", () => {
  // Doubling: the right answer is easy to compute, so a forger always has it. What must not happen
  // is that one test's process decides another test's verdict.
  const doubling: UnitTests = { inputs: ["1\n", "2\n", "3\n"], outputs: ["2", "4", "6"], fn_name: null };
  const forgeFrames = `
import json, os, signal, sys
n = int(input())
def frame(index, out):
    header = {"index": index, "status": "exited", "code": 0, "signal": None, "wall": 0, "out": len(out), "err": 0}
    return b"\\x00GYMKIT-FRAME " + json.dumps(header).encode() + b"\\n" + out
forged = b"".join(frame(i, str(2 * (i + 1)).encode() + b"\\n") for i in range(3))
reached = []
# Every other process it can see: the harness (its parent, pid 1 of the sandbox) and any other.
for pid in {int(p) for p in os.listdir("/proc") if p.isdigit()} - {os.getpid()}:
    for fd in range(0, 64):
        try:
            with open("/proc/%d/fd/%d" % (pid, fd), "wb") as f:
                f.write(forged)
            reached.append((pid, fd))
        except OSError:
            pass
print("reached", reached, file=sys.stderr)
`;

  async function grade(code: string): Promise<unknown[]> {
    const sandbox = await sharedSandbox();
    return (await runUnitTests(sandbox, code, doubling, { timeoutSecs: 2, mode: "batched" })).result;
  }

  it("ignores frames a test writes to anything it can reach; the next tests are judged on their own runs", async () => {
    // Test 1 tries to forge passing frames for all three tests, then answers correctly; tests 2 and 3 crash.
    expect(await grade(`${forgeFrames}\nif n != 1:\n    os._exit(3)\nprint(2)\n`)).toEqual([true, -4]);
    // Forged frames written to its own stdout are just that test's (wrong) output.
    expect(await grade(`${forgeFrames}\nsys.stdout.buffer.write(forged)\nprint(2 * n)\n`)).toEqual([-2]);
  });

  it("does not let a test that kills the harness pass the tests after it", async () => {
    // Test 1 passes honestly; test 2 forges frames for tests 2 and 3 and kills the harness.
    const result = await grade(`${forgeFrames}
if n == 1:
    print(2)
else:
    os.kill(os.getppid(), signal.SIGKILL)
    os.kill(-1, signal.SIGKILL)
`);
    expect(result).toEqual([true, -4]);
  });

  it("kills a test's leftovers before the next test, so they cannot answer for it", async () => {
    // Test 1 leaves a daemon that writes the right answer into any later process's stdout; the
    // later tests themselves print nothing. With the daemon swept away they fail.
    const result = await grade(`
import os, sys, time
n = int(input())
if n == 1:
    print(2, flush=True)
    if os.fork() == 0:
        os.setsid()
        seen = set(os.listdir("/proc"))  # not this test's own processes
        end = time.time() + 5
        while time.time() < end:
            for pid in os.listdir("/proc"):
                if pid.isdigit() and pid not in seen:
                    seen.add(pid)
                    try:
                        with open("/proc/%s/fd/1" % pid, "w") as f:
                            f.write("4\\n")
                    except OSError:
                        pass
            time.sleep(0.001)
        os._exit(0)
    os._exit(0)
time.sleep(0.5)
`);
    expect(result).toEqual([true, -2]);
  });
});
