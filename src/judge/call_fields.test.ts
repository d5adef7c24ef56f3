// The judge call config fields: their defaults are the kit's (600 s, three attempts), and
// judge_max_retries bounds the attempts the client makes before the call is a JudgeFailure.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { engineOf } from "../../test/helpers/scope.js";
import { JUDGE_RETRY, JudgeCallFields, judgeCallOptions, JudgeClient, JudgeFailure } from "./index.js";

const Schema = z.strictObject({ ...JudgeCallFields });

describe("JudgeCallFields", () => {
  it("default to the kit's deadline and retries", () => {
    const config = Schema.parse({});
    expect(config).toEqual({ judge_timeout_seconds: 600, judge_max_retries: JUDGE_RETRY.attempts - 1 });
    expect(judgeCallOptions(config)).toEqual({ timeoutSeconds: 600, retry: JUDGE_RETRY });
  });

  it("reject a negative or fractional retry count and a non-positive deadline", () => {
    expect(() => Schema.parse({ judge_max_retries: -1 })).toThrow();
    expect(() => Schema.parse({ judge_max_retries: 1.5 })).toThrow();
    expect(() => Schema.parse({ judge_timeout_seconds: 0 })).toThrow();
  });

  for (const retries of [0, 2]) {
    it(`judge_max_retries ${retries}: ${retries + 1} attempt(s) at a failing judge, then a JudgeFailure`, async () => {
      const engine = await engineOf({ respond: () => ({ status: 500, body: { error: { message: "down" } } }) });
      const options = judgeCallOptions(Schema.parse({ judge_max_retries: retries, judge_timeout_seconds: 5 }));
      const client = new JudgeClient(engine.url, undefined, { ...options, retry: { ...options.retry!, initialDelayMs: 1, maxDelayMs: 1 } });
      await expect(client.responses({ input: "x" } as never)).rejects.toBeInstanceOf(JudgeFailure);
      expect(engine.requests.filter((r) => r.path === "/v1/responses")).toHaveLength(retries + 1);
    });
  }
});
