// The Responses ⇄ Chat Completions conversion rules on their own: turn grouping and <think> parsing.
import { describe, expect, it } from "vitest";
import { toChatMessages } from "./chat_request.js";
import { splitThink, wrapThink } from "../tokens/think.js";
import { ResponsesCreateParams } from "../protocol/index.js";

const messages = (input: unknown[], replaceDeveloper = true) => toChatMessages(ResponsesCreateParams.parse({ input }), replaceDeveloper);
const assistant = (text: string) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
const fc = (id: string) => ({ type: "function_call", call_id: id, name: "f", arguments: "{}" });
const toolCall = (id: string) => ({ id, type: "function", function: { name: "f", arguments: "{}" } });

describe("toChatMessages", () => {
  it("keeps separate model turns separate", () => {
    expect(messages([{ role: "user", content: "u" }, assistant("a"), assistant("b")])).toEqual([
      { role: "user", content: "u" },
      { role: "assistant", content: "a" },
      { role: "assistant", content: "b" },
    ]);
  });

  it("starts a new turn at reasoning that follows tool calls", () => {
    const reasoning = { type: "reasoning", summary: [{ type: "summary_text", text: "r2" }] };
    expect(messages([fc("1"), reasoning, fc("2")])).toEqual([
      { role: "assistant", content: "", tool_calls: [toolCall("1")] },
      { role: "assistant", content: "<think>r2</think>", tool_calls: [toolCall("2")] },
    ]);
  });

  it("prefers reasoning content over summary, and keeps trailing reasoning as its own turn", () => {
    const reasoning = { type: "reasoning", summary: [{ type: "summary_text", text: "short" }], content: [{ type: "reasoning_text", text: "long" }] };
    expect(messages([{ role: "user", content: "u" }, reasoning])).toEqual([
      { role: "user", content: "u" },
      { role: "assistant", content: "<think>long</think>" },
    ]);
  });

  it("keeps images as chat content parts", () => {
    const input = [{ role: "user", content: [{ type: "input_text", text: "what is this?" }, { type: "input_image", image_url: "data:image/png;base64,AA", detail: "low" }] }];
    expect(messages(input)).toEqual([
      { role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image_url", image_url: { url: "data:image/png;base64,AA", detail: "low" } }] },
    ]);
  });

  it("names an unsupported item", () => {
    const params = { input: [{ type: "web_search_call", id: "x" }] } as unknown as ResponsesCreateParams;
    expect(() => toChatMessages(params, true)).toThrow('cannot convert input[0] of type "web_search_call" to Chat Completions');
  });
});

describe("splitThink", () => {
  it.each([
    ["<think>a</think>b", ["a"], "b"],
    ["a</think>b", ["a"], "b"],
    ["<think>cut off", ["cut off"], ""],
    ["x<think>a</think>y<think>b</think>z", ["a", "b"], "xyz"],
    ["no reasoning", [], "no reasoning"],
  ])("%j", (content, reasoning, text) => {
    expect(splitThink(content)).toEqual({ reasoning, text });
  });

  it("round-trips a whole think block", () => {
    const { reasoning, text } = splitThink("<think>\nhmm\n</think>\n\nanswer");
    expect(reasoning.map(wrapThink).join("") + text).toBe("<think>\nhmm\n</think>\n\nanswer");
  });
});
