// The judge kit on its own: verdict parsing, templates, the limiter, and the client against a judge
// engine on 127.0.0.1 (the fake engine double): headers, failure classes, the concurrency bound.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { engineOf } from "../../test/helpers/scope.js";
import { JUDGE_CALL_HEADER, ROLLOUT_HEADER, type ResponsesCreateParams } from "../protocol/index.js";
import { JudgeClient, JudgeFailure, Limiter, firstLabel, firstLabelIs, jsonVerdict, judgeMessages, majorityVote, numericScore, PromptTemplate, PromptTemplateError, readPromptFile, readPromptYaml, regexLabel, swapChecked } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "gym-judge-kit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("verdict parsing", () => {
  it("firstLabel: the earliest label wins; a label inside a longer one loses to the longer one at the same place", () => {
    expect(firstLabel("so [[A!=B]] not [[A=B]]", ["[[A=B]]", "[[A!=B]]"])).toBe("[[A!=B]]");
    expect(firstLabel("Grade: B then A", ["A", "B", "C"])).toBe("B");
    expect(firstLabel("A>>B", ["A>B", "A>>B"])).toBe("A>>B");
    expect(firstLabel("no label", ["A", "B"].map((l) => `[${l}]`))).toBeUndefined();
    expect(firstLabel(undefined, ["A"])).toBeUndefined();
  });

  it("firstLabelIs: positive only when it occurs before any negative", () => {
    expect(firstLabelIs("[[A=B]]", "[[A=B]]", "[[A!=B]]")).toBe(true);
    expect(firstLabelIs("[[A!=B]] ... [[A=B]]", "[[A=B]]", "[[A!=B]]")).toBe(false);
    expect(firstLabelIs("nothing", "[[A=B]]", "[[A!=B]]")).toBe(false);
  });

  it("regexLabel, numericScore and jsonVerdict read what they are asked for or nothing", () => {
    expect(regexLabel("Judgement: YES\nJudgement: NO", /Judgement:\s*(YES|NO)/)).toBe("YES");
    expect(regexLabel("Judgement: YES\nJudgement: NO", /Judgement:\s*(YES|NO)/, { last: true })).toBe("NO");
    expect(regexLabel("none", /x(y)/)).toBeUndefined();
    expect(numericScore("score 3 of 7, final 6.5")).toBe(6.5);
    expect(numericScore("Score: 4/10", /Score:\s*(\d+)/)).toBe(4);
    expect(numericScore("no digits")).toBeUndefined();
    expect(jsonVerdict('text ```json\n{"verdict": "pass"}\n``` more')).toEqual({ verdict: "pass" });
    expect(jsonVerdict('first {"a": 1} then {"b": {"c": 2}} end')).toEqual({ b: { c: 2 } });
    expect(jsonVerdict("{not json}")).toBeUndefined();
  });

  it("swapChecked asks the swapped question only after a pass; majorityVote abstains on undefined and breaks ties as told", async () => {
    const asked: string[] = [];
    const ask = (v: boolean, name: string) => async () => (asked.push(name), v);
    expect(await swapChecked(ask(false, "a"), ask(true, "b"), (v) => v)).toEqual({ passed: false, verdicts: [false] });
    expect(asked).toEqual(["a"]);
    expect(await swapChecked(ask(true, "c"), ask(false, "d"), (v) => v)).toEqual({ passed: false, verdicts: [true, false] });
    expect(majorityVote(["yes", "no", "yes", undefined])).toBe("yes");
    expect(majorityVote(["yes", "no"], "no")).toBe("no");
    expect(majorityVote(["no", "yes"])).toBe("no");
    expect(majorityVote([undefined])).toBeUndefined();
  });
});

describe("prompt templates", () => {
  it("fills Python str.format fields, keeps doubled braces, and names a missing field", () => {
    const template = new PromptTemplate("Q: {question}\nA: {answer!r} {{literal}}", "test template");
    expect(template.fields).toEqual(["question", "answer"]);
    expect(template.fill({ question: "2+2?", answer: "it's 4" })).toBe(`Q: 2+2?\nA: "it's 4" {literal}`);
    expect(template.fill({ question: null, answer: [1, true] })).toBe("Q: None\nA: [1, True] {literal}");
    expect(() => template.fill({ question: "x" })).toThrow(/test template: the template references `\{answer\}`, but only these are given: question/);
    expect(() => new PromptTemplate("bad {x:>10}", "cfg `judge_prompt_template`")).toThrow(PromptTemplateError);
  });

  it("reads a prompt file from disk when it is there, else the bundled copy, else says where it looked", () => {
    const onDisk = join(dir, "mine.txt");
    writeFileSync(onDisk, "my prompt {x}");
    const bundled = { "prompt_templates/judge.txt": "bundled {x}", "prompts/judge.yaml": "user: |-\n  grade {x}\n" };
    expect(readPromptFile(onDisk, { key: "k", bundled })).toBe("my prompt {x}");
    expect(readPromptFile("prompt_templates/judge.txt", { key: "k", bundled })).toBe("bundled {x}");
    expect(readPromptFile("./prompt_templates/judge.txt", { key: "k", bundled })).toBe("bundled {x}");
    expect(readPromptYaml("prompts/judge.yaml", "user", { key: "judge_prompt_path", bundled })).toBe("grade {x}");
    expect(() => readPromptYaml("prompts/judge.yaml", "system", { key: "judge_prompt_path", bundled })).toThrow(/`judge_prompt_path` \(prompts\/judge.yaml\): the file has no `system` template string/);
    expect(() => readPromptFile("prompt_templates/other.txt", { key: "judge_prompt_template_fpath", bundled })).toThrow(
      /`judge_prompt_template_fpath`: no prompt file "prompt_templates\/other.txt" \(looked at .*\); the environment ships "prompt_templates\/judge.txt", "prompts\/judge.yaml"/,
    );
  });
});

describe("the limiter", () => {
  it("never runs more than its size at once and serves waiters in arrival order", async () => {
    const limiter = new Limiter(2);
    let peak = 0;
    const order: number[] = [];
    const gates: Array<() => void> = [];
    const tasks = [0, 1, 2, 3, 4].map((i) =>
      limiter.run(async () => {
        peak = Math.max(peak, limiter.inFlight);
        order.push(i);
        await new Promise<void>((resolve) => gates.push(resolve));
      }),
    );
    // Open one gate at a time: each frees a slot for the next waiter.
    for (let opened = 0; opened < 5; opened++) {
      while (gates.length === 0) await new Promise((r) => setTimeout(r, 1));
      gates.shift()!();
    }
    await Promise.all(tasks);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.inFlight).toBe(0);
    expect(() => new Limiter(0)).toThrow(/positive integer/);
  });
});

describe("the judge client against a judge engine", () => {
  const template: ResponsesCreateParams = { input: [], temperature: 0 };
  const request = { _ng_task_index: 7, _ng_rollout_index: 2 };
  const resolver = (url: string) => ({ urlOf: () => url });

  it("sends the rollout and the call ordinal with every call, in the order the calls were started", async () => {
    const engine = await engineOf({ policy: (turns) => ({ text: `echo ${turns.at(-1)?.content}` }) });
    const judge = JudgeClient.for(resolver(engine.url), "judge", request);
    const [a, b] = await Promise.all([
      judge.responses(judgeMessages(template, [{ role: "user", content: "first" }])),
      judge.chat({ messages: [{ role: "user", content: "second" }] }),
    ]);
    expect(a.text).toBe("echo first");
    expect(b.text).toBe("echo second");
    expect(a.responses_create_params.input).toEqual([{ type: "message", role: "user", content: "first" }]);
    const headers = engine.requests.map((r) => [r.path, r.headers[ROLLOUT_HEADER], r.headers[JUDGE_CALL_HEADER]]);
    expect(headers.sort()).toEqual([["/v1/chat/completions", "7:2", "1"], ["/v1/responses", "7:2", "0"]]);
    // A request outside any rollout carries no rollout header; the template is never mutated.
    await JudgeClient.for(resolver(engine.url), "judge", {}).responses(judgeMessages(template, [{ role: "user", content: "x" }]));
    expect(engine.requests.at(-1)!.headers[ROLLOUT_HEADER]).toBeUndefined();
    expect(template.input).toEqual([]);
  });

  it("classifies failures as NeMo Gym names them: status, bad body, connection, timeout, undefined judge", async () => {
    const failing = await engineOf({ respond: (_path, body) => ((body.input as any[])?.[0]?.content === "500" ? { status: 500, body: { error: "boom" } } : { status: 200, body: { not: "a response" } }) });
    const ask = (url: string, content: string, timeoutSeconds?: number) =>
      JudgeClient.for(resolver(url), "judge", request, { timeoutSeconds, retry: { attempts: 1, initialDelayMs: 0, maxDelayMs: 0 } }).responses(judgeMessages(template, [{ role: "user", content }]));
    const failure = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as JudgeFailure);
    expect((await failure(ask(failing.url, "500")))?.describe()).toMatch(/^HTTPStatusError: .*500/);
    expect((await failure(ask(failing.url, "ok")))?.describe()).toMatch(/^ValidationError: the judge's reply is not a Response/);
    const noMessage = await engineOf({ respond: () => ({ status: 200, body: { choices: [{ index: 0, finish_reason: "stop" }] } }) });
    const chat = JudgeClient.for(resolver(noMessage.url), "judge", request, { retry: { attempts: 1, initialDelayMs: 0, maxDelayMs: 0 } }).chat({ messages: [] });
    expect((await failure(chat))?.describe()).toBe("ValidationError: the judge's reply is not a Chat Completion (choices.0 has no `message` object)");
    expect((await failure(ask("http://127.0.0.1:9", "x")))?.errorType).toBe("ConnectionError");
    const slow = await engineOf({ delayMs: 5_000 });
    expect((await failure(ask(slow.url, "x", 0.2)))?.errorType).toBe("TimeoutError");
    const undefinedJudge = { urlOf: () => { throw new Error("instance `genrm_model` is not defined"); } };
    expect(() => JudgeClient.for(undefinedJudge, "genrm_model", request)).toThrow(JudgeFailure);
  });

  it("retries what NeMo Gym's judge retry takes as transient (408, 409, 425, 429, 5xx, a timeout), not other 4xx", async () => {
    // Each content names the status its first attempt gets; the second attempt is answered as usual.
    const seen = new Map<string, number>();
    let slowCalls = 0;
    const engine = await engineOf({
      respond: (_path, body) => {
        const content = String((body.input as any[])?.[0]?.content);
        const count = (seen.get(content) ?? 0) + 1;
        seen.set(content, count);
        return count === 1 && /^\d+$/.test(content) ? { status: Number(content), body: { error: `status ${content}` } } : undefined;
      },
      // The first "slow" attempt would answer long after the deadline; only a retry can answer in time.
      delayMs: (_path, body) => (String((body.input as any[])?.[0]?.content) === "slow" && ++slowCalls === 1 ? 60_000 : 0),
    });
    const ask = (content: string, timeoutSeconds?: number) =>
      JudgeClient.for(resolver(engine.url), "judge", request, { timeoutSeconds, retry: { attempts: 2, initialDelayMs: 0, maxDelayMs: 0 } }).responses(judgeMessages(template, [{ role: "user", content }]));
    for (const status of ["408", "409", "425", "429", "500", "503"]) {
      expect((await ask(status)).text, status).toBe(`You said: ${status}`);
      expect(seen.get(status), status).toBe(2);
    }
    for (const status of ["400", "404", "422"]) {
      const failed = await ask(status).then(() => undefined, (e: unknown) => e as JudgeFailure);
      expect(failed?.describe(), status).toMatch(new RegExp(`^HTTPStatusError: .*${status}`));
      expect(seen.get(status), status).toBe(1);
    }
    expect((await ask("slow", 2)).text).toBe("You said: slow");
    expect(slowCalls).toBe(2);
  }, 60_000);

  it("keeps the judge calls in flight at or under the limiter's size", async () => {
    let inFlight = 0;
    let peak = 0;
    const engine = await engineOf({
      delayMs: () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        setTimeout(() => inFlight--, 50);
        return 50;
      },
    });
    const limiter = new Limiter(3);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => JudgeClient.for(resolver(engine.url), "judge", { _ng_task_index: i, _ng_rollout_index: 0 }, { limiter }).responses(judgeMessages(template, [{ role: "user", content: String(i) }]))),
    );
    expect(engine.requests).toHaveLength(12);
    expect(peak).toBeLessThanOrEqual(3);
    expect(peak).toBeGreaterThan(1);
  });
});
