// instruction_following over HTTP: the spec's cases (nemo-gym-examples/README.md §8), the example
// rows with hand-written responses, both grading modes, the legacy row layout and the text NeMo Gym
// grades (first content part of the last output item).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import instructionFollowing from "./index.js";
import { assistantMessage, functionCall, responseWith, readJsonlFile, replayExampleRollouts, startInstance, type RunningInstance } from "../../environment_kit/testing.js";

const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(instructionFollowing);
});
afterAll(() => env.close());

interface Metadata {
  instruction_id_list: string[];
  kwargs: Array<Record<string, unknown> | null>;
  grading_mode?: string;
  prompt?: string;
}

function legacyRow(m: Metadata, id = 1): Record<string, unknown> {
  return { id, responses_create_params: { input: "prompt" }, prompt: "prompt", ...m };
}

async function verify(row: Record<string, unknown>, output: Array<Record<string, unknown>>) {
  const result = await env.request("/verify", { ...row, response: responseWith(output) });
  expect(result.status, result.text).toBe(200);
  return result.body as { reward: number; follow_all_instructions: boolean; follow_instruction_list: boolean[]; verifier_metadata: Metadata };
}

const say = (text: string) => [assistantMessage(text)];

describe("spec cases", () => {
  const title = { instruction_id_list: ["detectable_format:title"], kwargs: [null] };
  it("title present → [true], reward 1.0", async () => {
    const r = await verify(legacyRow(title), say("<<My Title>>\n\nThis is my answer."));
    expect([r.follow_instruction_list, r.reward, r.follow_all_instructions]).toEqual([[true], 1.0, true]);
  });
  it("no title → 0.0", async () => {
    const r = await verify(legacyRow(title), say("My Title\n\nThis is my answer."));
    expect([r.follow_instruction_list, r.reward]).toEqual([[false], 0.0]);
  });
  it("number_words {6, at least} on “This response has exactly six words.” → 1.0", async () => {
    const m = { instruction_id_list: ["length_constraints:number_words"], kwargs: [{ num_words: 6, relation: "at least" }] };
    expect((await verify(legacyRow(m), say("This response has exactly six words."))).reward).toBe(1.0);
  });
  it("title + no_comma with a comma → [true, false]: 0.0 binary, 0.5 fraction", async () => {
    const m = { instruction_id_list: ["detectable_format:title", "punctuation:no_comma"], kwargs: [null, {}] };
    const text = say("<<Title>>\n\nFirst, second.");
    const binary = await verify(legacyRow(m), text);
    expect([binary.follow_instruction_list, binary.reward, binary.follow_all_instructions]).toEqual([[true, false], 0.0, false]);
    const fraction = await verify(legacyRow({ ...m, grading_mode: "fraction" }), text);
    expect([fraction.follow_instruction_list, fraction.reward]).toEqual([[true, false], 0.5]);
  });
});

describe("example.jsonl rows with hand-written responses", () => {
  const seventeen = Array.from({ length: 17 }, (_, i) => `Topic ${i + 1} is on page [${i + 1}].`).join(" ");
  const answers: Array<[string, boolean[]]> = [
    ["Oliver wakes in the hospital.\n\nHe remembers everything.\n\nCrash! The memories flood back.\n\nHe vows to win this contest", [true, true]],
    ["SQL OPTIMIZATION\n* USE INDEXES\n* AVOID SELECT STAR\n* FILTER EARLY\n***\n* JOIN ON KEYS\n* LIMIT ROWS", [true, true, true]],
    ["Relationship building matters for indie developers. Relationship with players drives sales of casual puzzle games.", [true, true]],
    [seventeen, [true, true, true]],
    ["<<Installing JayHorn>>\nDownload the release jar and install Java first.\n***\nRun java -jar jayhorn.jar with your source file.", [true, true, true]],
  ];
  exampleRows.forEach((row, i) => {
    const [text, expected] = answers[i]!;
    it(`row ${i} (id ${row.id}) follows every instruction`, async () => {
      const r = await verify(row, say(text));
      expect(r.follow_instruction_list).toEqual(expected);
      expect(r.reward).toBe(1.0);
      // The legacy top-level fields come back inside verifier_metadata, with the default mode.
      expect(r.verifier_metadata).toEqual({
        instruction_id_list: row.instruction_id_list,
        kwargs: row.kwargs,
        prompt: row.prompt,
        grading_mode: "binary",
      });
    });
  });
  it("row 1 broken three ways: fraction 0/3 and binary 0", async () => {
    const text = "here is a long answer in lowercase words only, with one bullet:\n* just this one";
    const row = exampleRows[1]!;
    const binary = await verify(row, say(text));
    expect([binary.follow_instruction_list, binary.reward]).toEqual([[false, false, false], 0]);
    const fraction = await verify({ ...row, grading_mode: "fraction" }, say(text));
    expect(fraction.reward).toBe(0);
  });
  it("row 3 with two of three: fraction 2/3", async () => {
    const fraction = await verify({ ...exampleRows[3]!, grading_mode: "fraction" }, say("Only [one] sentence with [two] [three] [four] placeholders."));
    expect(fraction.follow_instruction_list).toEqual([true, true, false]);
    expect(fraction.reward).toBeCloseTo(2 / 3, 12);
  });
});

describe("row layout", () => {
  it("reads instructions from verifier_metadata; explicit fields win over legacy top-level ones", async () => {
    const row = {
      id: 5,
      responses_create_params: { input: "p" },
      instruction_id_list: ["punctuation:no_comma"],
      kwargs: [{}],
      verifier_metadata: { instruction_id_list: ["detectable_format:title"], kwargs: [null], prompt: "p", grading_mode: "fraction" },
    };
    const r = await verify(row, say("<<T>>, with a comma"));
    expect(r.follow_instruction_list).toEqual([true]);
    expect(r.verifier_metadata.instruction_id_list).toEqual(["detectable_format:title"]);
  });
  it("fills fields missing from verifier_metadata from the top level", async () => {
    const row = { id: 6, responses_create_params: { input: "p" }, prompt: "p", kwargs: [{}], verifier_metadata: { instruction_id_list: ["punctuation:no_comma"] } };
    const r = await verify(row, say("no commas here"));
    expect(r).toMatchObject({ reward: 1, verifier_metadata: { instruction_id_list: ["punctuation:no_comma"], kwargs: [{}], prompt: "p", grading_mode: "binary" } });
  });
  it("a null verifier_metadata is filled from the legacy fields", async () => {
    const r = await verify({ ...legacyRow({ instruction_id_list: ["punctuation:no_comma"], kwargs: [{}] }), verifier_metadata: null }, say("ok"));
    expect(r.reward).toBe(1);
  });
  it("422 when id or a required instruction field is missing", async () => {
    const noId = await env.request("/verify", { ...legacyRow({ instruction_id_list: [], kwargs: [] }), id: undefined, response: responseWith([]) });
    expect(noId.status).toBe(422);
    const noPrompt = await env.request("/verify", {
      id: 1,
      responses_create_params: { input: "p" },
      instruction_id_list: ["punctuation:no_comma"],
      kwargs: [{}],
      response: responseWith([]),
    });
    expect(noPrompt.status).toBe(422);
    expect(noPrompt.body.detail).toEqual([expect.objectContaining({ loc: ["body", "verifier_metadata", "prompt"], msg: "Field required" })]);
  });
  it("an unknown grading_mode is a server error (500), as in NeMo Gym", async () => {
    const r = await env.request("/verify", { ...legacyRow({ instruction_id_list: [], kwargs: [], grading_mode: "strict" }), response: responseWith([]) });
    expect(r.status).toBe(500);
  });
  it("an empty instruction list: binary 1.0, fraction 0.0", async () => {
    expect((await verify(legacyRow({ instruction_id_list: [], kwargs: [] }), say("x"))).reward).toBe(1);
    expect((await verify(legacyRow({ instruction_id_list: [], kwargs: [], grading_mode: "fraction" }), say("x"))).reward).toBe(0);
  });
  it("pairs ids with kwargs; the shorter list wins", async () => {
    const r = await verify(legacyRow({ instruction_id_list: ["punctuation:no_comma", "detectable_format:title"], kwargs: [{}] }), say("a, b"));
    expect(r.follow_instruction_list).toEqual([false]);
  });
  it("an unknown instruction id is not followed but does not fail the request", async () => {
    const r = await verify(legacyRow({ instruction_id_list: ["made:up", "punctuation:no_comma"], kwargs: [{}, {}], grading_mode: "fraction" }), say("ok"));
    expect([r.follow_instruction_list, r.reward]).toEqual([[false, true], 0.5]);
  });
  it("answers verifier_metadata (merged), as its verify response model declares, and not the row's id", async () => {
    const r = await env.request("/verify", { ...legacyRow({ instruction_id_list: [], kwargs: [] }, 42), response: responseWith(say("x")) });
    expect(r.body).not.toHaveProperty("id");
    expect(r.body.verifier_metadata).toEqual({ instruction_id_list: [], kwargs: [], prompt: "prompt", grading_mode: "binary" });
  });
  it("reverify mode is 'unknown', as NeMo Gym reports for this server", async () => {
    expect((await env.request("/reverify_mode")).body).toBe("unknown");
  });
});

describe("graded text: first content part of the last output item", () => {
  const title = legacyRow({ instruction_id_list: ["detectable_format:title"], kwargs: [null] });
  it("ignores text before a trailing tool call", async () => {
    const r = await verify(title, [assistantMessage("<<T>>"), functionCall("lookup", {})]);
    expect(r.follow_instruction_list).toEqual([false]);
  });
  it("ignores earlier messages", async () => {
    const r = await verify(title, [assistantMessage("<<T>>"), assistantMessage("no title here")]);
    expect(r.follow_instruction_list).toEqual([false]);
  });
  it("reads only the first content part", async () => {
    const message = { ...assistantMessage("plain"), content: [{ type: "output_text", text: "plain", annotations: [] }, { type: "output_text", text: "<<T>>", annotations: [] }] };
    expect((await verify(title, [message])).follow_instruction_list).toEqual([false]);
    const first = { ...message, content: [...message.content].reverse() };
    expect((await verify(title, [first])).follow_instruction_list).toEqual([true]);
  });
  it("an empty output grades the empty string", async () => {
    const r = await verify(legacyRow({ instruction_id_list: ["punctuation:no_comma", "last_word:last_word_answer"], kwargs: [{}, { last_word: "x" }] }), []);
    expect(r.follow_instruction_list).toEqual([true, false]);
  });
});

describe("data/example_rollouts.jsonl (NeMo Gym's, 07d6b0d)", () => {
  it("every line, replayed, scores the reward it records", async () => {
    const replayed = await replayExampleRollouts(env, new URL("./data/", import.meta.url));
    expect(replayed.length).toBeGreaterThan(0);
    for (const { line, status, reward, recorded } of replayed) {
      expect(status, `line ${line}`).toBe(200);
      expect(reward, `line ${line}`).toBe(recorded);
    }
  });
});
