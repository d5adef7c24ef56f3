// judge_replay_model's request check: a request as sent (NeMo Gym's defaults left unset) equals the
// same request as NeMo Gym records it (its pydantic model's full dump: `tools: []`, ...).
import { describe, expect, it } from "vitest";
import { canonicalRequest } from "./replay_key.js";
import { firstDifference } from "./first_difference.js";
import { withCreateDefaults } from "./judge_replay_model.js";
import type { ResponsesCreateParams } from "../protocol/index.js";

const sent = { input: [{ type: "message", role: "user", content: "q" }], max_output_tokens: 2048 } as ResponsesCreateParams;
const recorded = {
  ...sent,
  background: null,
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  temperature: null,
} as unknown as ResponsesCreateParams;
const same = (a: ResponsesCreateParams, b: ResponsesCreateParams) => firstDifference(canonicalRequest(withCreateDefaults(a)), canonicalRequest(withCreateDefaults(b)));

describe("withCreateDefaults", () => {
  it("makes a sent request and its recorded full dump compare equal", () => {
    expect(firstDifference(canonicalRequest(sent), canonicalRequest(recorded))).toBeDefined();
    expect(same(sent, recorded)).toBeUndefined();
  });
  it("still finds a real difference, including a non-default value of a defaulted field", () => {
    expect(same({ ...sent, max_output_tokens: 100 } as ResponsesCreateParams, recorded)).toBe("max_output_tokens");
    expect(same({ ...sent, parallel_tool_calls: false } as ResponsesCreateParams, recorded)).toBe("parallel_tool_calls");
  });
});
