// judge_replay_model's request check: a judge request sent with only what the environment sets equals
// the NeMo Gym recording of it (every create-params field dumped, unset ones as their defaults), and a
// changed prompt does not.
import { describe, expect, it } from "vitest";
import { comparableRequest } from "./judge_replay_model.js";
import { firstDifference } from "./first_difference.js";
import type { ResponsesCreateParams } from "../protocol/index.js";

const sent = { input: [{ type: "message", role: "user", content: "Is 4 equal to four?" }] } as ResponsesCreateParams;
// How NeMo Gym 07d6b0d writes the same request into judge_evaluations.
const recorded = {
  background: null, include: null, input: [{ content: "Is 4 equal to four?", role: "user", type: "message" }], instructions: null,
  max_output_tokens: null, max_tool_calls: null, metadata: null, model: null, parallel_tool_calls: true, previous_response_id: null,
  prompt: null, reasoning: null, service_tier: null, store: null, temperature: null, text: null, tool_choice: "auto", tools: [],
  top_logprobs: null, top_p: null, truncation: null, user: null, stream: null,
} as unknown as ResponsesCreateParams;

describe("comparableRequest", () => {
  it("a sent request equals NeMo Gym's dump of it; a changed prompt or setting differs", () => {
    expect(firstDifference(comparableRequest(sent), comparableRequest(recorded))).toBeUndefined();
    const changed = { ...sent, input: [{ type: "message", role: "user", content: "Is 4 equal to 5?" }] } as ResponsesCreateParams;
    expect(firstDifference(comparableRequest(changed), comparableRequest(recorded))).toBe("input[0].content");
    expect(firstDifference(comparableRequest({ ...sent, temperature: 0 }), comparableRequest(recorded))).toBe("temperature");
    expect(firstDifference(comparableRequest({ ...sent, parallel_tool_calls: false }), comparableRequest(recorded))).toBe("parallel_tool_calls");
  });
});
