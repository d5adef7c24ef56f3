import { describe, expect, it } from "vitest";
import { newId } from "./response_object.js";
import { jsonSizeEstimate } from "./response_store.js";

describe("newId", () => {
  it("gives a prefix and the 32 hex digits of a version-4 UUID, distinct across pool refills", () => {
    const ids = Array.from({ length: 1000 }, () => newId("resp"));
    for (const id of ids) expect(id).toMatch(/^resp_[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("jsonSizeEstimate", () => {
  it("is the length of the JSON text for values without escapes or fractions", () => {
    const values: unknown[] = [
      [],
      {},
      "",
      0,
      -7,
      123456789,
      true,
      false,
      null,
      [{ type: "message", id: "msg_1", content: [{ type: "output_text", text: "sunny", annotations: [], logprobs: null }], n: [1, 22, -333] }],
      { a: undefined, b: 1, c: [null, {}], d: { e: [] } },
    ];
    for (const value of values) expect(jsonSizeEstimate(value), JSON.stringify(value)).toBe(JSON.stringify(value).length);
    // Escapes are not counted: an estimate, close to the text's length.
    expect(jsonSizeEstimate({ arguments: '{"city": "sf"}' })).toBe(JSON.stringify({ arguments: '{"city": "sf"}' }).length - 4);
  });
});
