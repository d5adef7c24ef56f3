// src/tokens building blocks: raw-completion parsing, Python JSON layout, on-policy prefix
// correction, the trainer export (and its CLI), and the tool-call grammar local_model uses.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolCallGrammar } from "../src/models/local/tool_grammar.js";
import { exportTokens, flattenRollout, NoTokensError } from "../src/tokens/export.js";
import { evalExport } from "../src/cli/eval_export.js";
import { parseCompletion, templateToolCallFormat } from "../src/tokens/parse_completion.js";
import { callTokensOf, NonContiguousError, onPolicyPromptIds } from "../src/tokens/prefix.js";
import { pythonJsonDumps } from "../src/tokens/python_json.js";

describe("parseCompletion (Qwen3 <think> + Hermes <tool_call>)", () => {
  it("splits reasoning, answer text and tool calls; arguments in vLLM's json.dumps spelling", () => {
    const text = '<think>\nplan\n</think>\n\nChecking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city":"Paris","days":[1,2]}}\n</tool_call>\n<tool_call>\n{"name": "noop", "arguments": {}}\n</tool_call>';
    expect(parseCompletion(text)).toEqual({
      reasoning: ["\nplan\n"],
      content: "\n\nChecking.\n",
      toolCalls: [
        { name: "get_weather", arguments: '{"city": "Paris", "days": [1, 2]}' },
        { name: "noop", arguments: "{}" },
      ],
    });
  });

  it("handles reasoning opened by the prompt, a call cut by the token limit, and plain text", () => {
    expect(parseCompletion("thinking…</think>\n\nAnswer")).toEqual({ reasoning: ["thinking…"], content: "\n\nAnswer", toolCalls: [] });
    expect(parseCompletion('<tool_call>\n{"name": "f", "arguments": {"a": 1}}')).toEqual({ reasoning: [], content: "", toolCalls: [{ name: "f", arguments: '{"a": 1}' }] });
    expect(parseCompletion("just text")).toEqual({ reasoning: [], content: "just text", toolCalls: [] });
  });

  it("keeps a malformed call as text (the model's mistake is scored, not hidden)", () => {
    const text = 'Sure <tool_call>\n{"name": "f", "arguments": {"a": }\n</tool_call>';
    expect(parseCompletion(text)).toEqual({ reasoning: [], content: text, toolCalls: [] });
    expect(parseCompletion('<tool_call>["not", "an object"]</tool_call>').toolCalls).toEqual([]);
  });

  it("leaves tool calls as text when tool parsing is off", () => {
    expect(parseCompletion("<tool_call>{}</tool_call>", null)).toEqual({ reasoning: [], content: "<tool_call>{}</tool_call>", toolCalls: [] });
  });

  it("recognises templates that write Hermes tool calls", () => {
    expect(templateToolCallFormat("{{- '<tool_call>\\n' }}…{{- '</tool_call>' }}")).toBe("hermes");
    expect(templateToolCallFormat("{{ '<|python_tag|>' }}")).toBeNull();
  });
});

describe("pythonJsonDumps", () => {
  it("writes Python's json.dumps layout with ensure_ascii=False", () => {
    expect(pythonJsonDumps({ a: [1, 2.5, "é\n"], b: { c: null, d: true } })).toBe('{"a": [1, 2.5, "é\\n"], "b": {"c": null, "d": true}}');
    expect(pythonJsonDumps([])).toBe("[]");
    expect(pythonJsonDumps({})).toBe("{}");
  });
});

describe("onPolicyPromptIds", () => {
  const EOT = 9;
  // Prompt: [1 2 EOT 3]; the model sampled [4 5 EOT]; the fresh render re-tokenized that turn as [45 EOT].
  const first = { prompt_token_ids: [1, 2, EOT, 3], generation_token_ids: [4, 5, EOT], generation_log_probs: [-1, -1, 0] };

  it("keeps the sampled ids and appends what follows the n-th end-of-turn token of the fresh render", () => {
    const fresh = [1, 2, EOT, 3, 45, EOT, 6, 7, EOT, 8];
    expect(onPolicyPromptIds({ calls: [first], freshIds: fresh, endOfTurnId: EOT })).toEqual({ ids: [1, 2, EOT, 3, 4, 5, EOT, 6, 7, EOT, 8], keptLength: 7 });
  });

  it("closes a turn cut by the token limit with the end-of-turn token", () => {
    const cut = { prompt_token_ids: [1, 2, EOT, 3], generation_token_ids: [4, 5] };
    expect(onPolicyPromptIds({ calls: [cut], freshIds: [1, 2, EOT, 3, 45, EOT, 6], endOfTurnId: EOT }).ids).toEqual([1, 2, EOT, 3, 4, 5, EOT, 6]);
  });

  it("is the fresh render on a first call", () => {
    expect(onPolicyPromptIds({ calls: [], freshIds: [1, 2], endOfTurnId: EOT })).toEqual({ ids: [1, 2], keptLength: 0 });
  });

  it("fails loudly when the render has fewer turns than the ids, or earlier calls do not line up", () => {
    expect(() => onPolicyPromptIds({ calls: [first], freshIds: [1, 2, EOT, 3, 45], endOfTurnId: EOT })).toThrow(/has 1 end-of-turn token\(s\) .* have 2/);
    const second = { prompt_token_ids: [1, 2, EOT, 3, 4, 99, EOT, 6], generation_token_ids: [7, EOT] };
    expect(() => onPolicyPromptIds({ calls: [first, second], freshIds: [1], endOfTurnId: EOT })).toThrow(NonContiguousError);
  });

  it("with a family's own turn ends: cuts after the render's last model turn and closes a cut turn with the family's token", () => {
    // A DeepSeek-like family: model turns end in EOT (sampled) or 8 (the template's single call); 7 closes a cut turn.
    const turns = { name: "t", ends: [EOT], stops: [EOT], close: 7, describe: "x", afterLastModelTurn: (ids: readonly number[]) => Math.max(ids.lastIndexOf(EOT), ids.lastIndexOf(8)) + 1 || -1 };
    const call = { prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5, 6, EOT] };
    expect(onPolicyPromptIds({ calls: [call], freshIds: [1, 2, 3, 45, 8, 20, 21], endOfTurnId: EOT, turns }).ids).toEqual([1, 2, 3, 4, 5, 6, EOT, 20, 21]);
    const cut = { prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5] };
    expect(onPolicyPromptIds({ calls: [cut], freshIds: [1, 2, 3, 45, EOT, 20], endOfTurnId: EOT, turns })).toEqual({ ids: [1, 2, 3, 4, 5, 7, 20], keptLength: 6 });
    expect(() => onPolicyPromptIds({ calls: [call], freshIds: [1, 2, 3, 20], endOfTurnId: EOT, turns })).toThrow(/render has no complete model turn \(x\)/);
  });

  it("refuses a render that rewrote the first prompt, except in its generation prompt", () => {
    // The first prompt [1 2 EOT 3] ends in a one-id generation prompt (3); the history render may differ there only.
    expect(onPolicyPromptIds({ calls: [first], freshIds: [1, 2, EOT, 33, 45, EOT, 6], endOfTurnId: EOT, generationPromptLength: 1 }).ids).toEqual([1, 2, EOT, 3, 4, 5, EOT, 6]);
    let error: NonContiguousError | undefined;
    try {
      onPolicyPromptIds({ calls: [first], freshIds: [1, 12, EOT, 3, 45, EOT, 6], endOfTurnId: EOT, generationPromptLength: 1 });
    } catch (e) {
      error = e as NonContiguousError;
    }
    expect(error).toBeInstanceOf(NonContiguousError);
    expect(error!.position).toBe(1);
    expect(error!.message).toMatch(/^the chat template rewrote the start of the conversation: the fresh render differs at token 1 from the first call's prompt/);
  });

  it("reads the token fields of items in order", () => {
    expect(callTokensOf([{ type: "message" }, first, { prompt_token_ids: [1], generation_token_ids: "x" }])).toEqual([first]);
  });
});

describe("flattenRollout", () => {
  const rollout = (output: unknown[]) => ({ response: { output }, reward: 0.5, _ng_task_index: 3, _ng_rollout_index: 1, agent_ref: { name: "a" } });
  const call1 = { type: "function_call", prompt_token_ids: [1, 2], generation_token_ids: [3, 4], generation_log_probs: [-0.5, -0.25] };
  const call2 = { type: "message", prompt_token_ids: [1, 2, 3, 4, 7, 8], generation_token_ids: [5], generation_log_probs: [-1] };

  it("interleaves sampled tokens (mask 1, logprobs) and environment tokens (mask 0, logprob 0)", () => {
    expect(flattenRollout(rollout([call1, { type: "function_call_output" }, call2]))).toEqual({
      prompt_ids: [1, 2],
      response_ids: [3, 4, 7, 8, 5],
      response_mask: [1, 1, 0, 0, 1],
      response_logprobs: [-0.5, -0.25, 0, 0, -1],
      reward: 0.5,
      _ng_task_index: 3,
      _ng_rollout_index: 1,
      agent_ref: { name: "a" },
    });
  });

  it("refuses rollouts without token ids or whose prompts were re-rendered", () => {
    expect(() => flattenRollout(rollout([{ type: "message" }]))).toThrow(NoTokensError);
    expect(() => flattenRollout(rollout([call1, { ...call2, prompt_token_ids: [1, 2, 3, 9, 7] }]))).toThrow(/first difference at token 3 of 4/);
  });

  it("exports a JSONL file, listing what it could not export (and the CLI exits 3 for them)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gymkit-export-"));
    const input = join(dir, "rollouts.jsonl");
    writeFileSync(input, [JSON.stringify(rollout([call1])), JSON.stringify(rollout([])), "{oops", ""].join("\n"));
    const lines: string[] = [];
    const summary = await exportTokens(input, (line) => lines.push(line));
    expect(summary.written).toBe(1);
    expect(summary.problems.map((p) => p.line)).toEqual([2, 3]);
    expect(JSON.parse(lines[0]!).response_mask).toEqual([1, 1]);

    const output = join(dir, "out", "tokens.jsonl");
    const previous = process.exitCode;
    const stderr = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      await evalExport({ rollouts: input, output, format: "tokens" });
      expect(process.exitCode).toBe(3);
    } finally {
      process.stderr.write = stderr;
      process.exitCode = previous;
    }
    expect(readFileSync(output, "utf8").trim().split("\n")).toHaveLength(1);
    await expect(evalExport({ rollouts: input, output, format: "parquet" })).rejects.toThrow(/only export format/);
  });
});

describe("toolCallGrammar", () => {
  it("forces one Hermes call whose arguments follow the schema in json.dumps layout", () => {
    const grammar = toolCallGrammar([
      {
        name: "book",
        parameters: {
          type: "object",
          properties: { city: { enum: ["Paris", "Lima"] }, nights: { type: "integer" }, note: { type: "string", maxLength: 5 }, extra: { type: "string" } },
          required: ["city", "nights", "note"],
        },
      },
    ]);
    const lines = grammar.split("\n");
    expect(lines[0]).toBe('root ::= "<tool_call>\\n{\\"name\\": \\"book\\", \\"arguments\\": " r0 "}\\n</tool_call>"');
    expect(lines.at(-1)).toBe('r0 ::= "{" "\\"city\\": " ("\\"Paris\\"" | "\\"Lima\\"") ", \\"nights\\": " json-integer ", \\"note\\": " "\\"" json-char{0,5} "\\"" "}"');
  });
});
