// The shared model-server builder, exercised through vllm_model on 127.0.0.1 against the fake engine:
// request validation, streaming refusal, model listing, the rollout header.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, closeDispatcher, NO_RETRY } from "../src/http/client.js";
import { listen } from "../src/http/server.js";
import vllmModel from "../src/models/vllm_model.js";
import { ROLLOUT_HEADER } from "../src/protocol/index.js";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";

let engine: FakeEngine;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  engine = await startFakeEngine();
  const config = vllmModel.configSchema.parse({ base_url: engine.baseUrl, api_key: "k", model: "policy" });
  const app = await vllmModel.build({ name: "policy_model", config, urlOf: () => "" });
  url = await listen(app);
  close = () => app.close();
});

afterAll(async () => {
  await close();
  await engine.close();
  await closeDispatcher();
});

const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const result = await call(`${url}${path}`, { method: "POST", body, headers, retry: NO_RETRY });
  return { status: result.status, json: JSON.parse(result.text) };
};

describe("model server builder", () => {
  it("answers health at GET /", async () => {
    const result = await call(`${url}/`, { retry: NO_RETRY });
    expect(JSON.parse(result.text)).toEqual({ status: "ok" });
  });

  it("serves POST /v1/responses", async () => {
    const { status, json } = await post("/v1/responses", { input: "hi" });
    expect(status).toBe(200);
    expect(json.object).toBe("response");
    expect(json.output[0].content[0].text).toBe("You said: hi");
  });

  it("rejects an unknown create param with a 422 naming it", async () => {
    const { status, json } = await post("/v1/responses", { input: "hi", max_tokens: 5 });
    expect(status).toBe(422);
    expect(JSON.stringify(json.detail)).toContain("max_tokens");
    expect(json.detail[0].type).toBe("extra_forbidden");
    // OpenAI SDKs read error.message; NeMo Gym clients read detail. Both are there.
    expect(json.error).toMatchObject({ type: "invalid_request_error", message: expect.stringContaining("max_tokens") });
  });

  it("rejects a body without input with a 422", async () => {
    const { status, json } = await post("/v1/responses", { instructions: "x" });
    expect(status).toBe(422);
    expect(json.detail[0].loc).toEqual(["body", "input"]);
  });

  it("refuses streaming with a clear 400", async () => {
    const { status, json } = await post("/v1/responses", { input: "hi", stream: true });
    expect(status).toBe(400);
    expect(json.detail).toMatch(/streaming is not supported/);
    const chat = await post("/v1/chat/completions", { messages: [], stream: true });
    expect(chat.status).toBe(400);
  });

  it("lists the configured model at GET /v1/models", async () => {
    const result = await call(`${url}/v1/models`, { retry: NO_RETRY });
    expect(JSON.parse(result.text)).toMatchObject({ object: "list", data: [{ id: "policy", object: "model" }] });
  });

  it("passes the rollout header through and rejects a malformed one", async () => {
    expect((await post("/v1/responses", { input: "hi" }, { [ROLLOUT_HEADER]: "3:1" })).status).toBe(200);
    const bad = await post("/v1/responses", { input: "hi" }, { [ROLLOUT_HEADER]: "three" });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toContain(ROLLOUT_HEADER);
  });
});
