// genrm_model through a real server in front of the fake engine: the comparison in `metadata`
// becomes principle / response_1 / response_2 messages after the conversation (NeMo Gym 07d6b0d
// genrm_model's cases), `metadata` never reaches the engine, and NeMo Gym's configs validate.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDispatcher } from "../http/client.js";
import { startInstance, type RunningInstance } from "../environment_kit/testing.js";
import { loadImplementation } from "../orchestrate/registry.js";
import { startFakeEngine, type FakeEngine } from "../../test/doubles/fake_engine.js";
import genrmModel, { GenRMModelConfig } from "./genrm_model.js";

let engine: FakeEngine;
const servers: RunningInstance[] = [];

async function server(config: Record<string, unknown> = {}): Promise<RunningInstance> {
  const instance = await startInstance(genrmModel, { name: "genrm_model", config: { base_url: engine.baseUrl, model: "genrm", uses_reasoning_parser: false, ...config } });
  servers.push(instance);
  return instance;
}

/** Sends a Responses request; returns the messages and body the engine received. */
async function sent(instance: RunningInstance, input: Array<{ role: string; content: string }>, metadata?: Record<string, unknown>) {
  const before = engine.requests.length;
  const reply = await instance.request("/v1/responses", { input: input.map((m) => ({ ...m, type: "message" })), ...(metadata ? { metadata } : {}) });
  expect(reply.status, reply.text).toBe(200);
  const body = engine.requests.slice(before).find((r) => r.path.endsWith("/chat/completions"))!.body;
  return { messages: body.messages as Array<{ role: string; content: unknown }>, body, reply: reply.body };
}

beforeAll(async () => {
  engine = await startFakeEngine({ model: "genrm", policy: () => ({ text: '{"score_1": 4, "score_2": 2, "ranking": 2}' }) });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await engine.close();
  await closeDispatcher();
});

describe("genrm_model", () => {
  it("is registered", async () => {
    expect((await loadImplementation("responses_api_models", "genrm_model")).id).toBe("genrm_model");
  });

  it("appends response_1 and response_2 from metadata after the untouched conversation; metadata is not forwarded", async () => {
    const { messages, body, reply } = await sent(await server(), [{ role: "user", content: "What is the capital of France?" }, { role: "assistant", content: "Paris." }], {
      response_1: "Response A",
      response_2: "Response B",
    });
    expect(messages).toEqual([
      { role: "user", content: "What is the capital of France?" },
      { role: "assistant", content: "Paris." },
      { role: "response_1", content: "Response A" },
      { role: "response_2", content: "Response B" },
    ]);
    expect(body).not.toHaveProperty("metadata");
    expect(reply.output.at(-1).content[0].text).toBe('{"score_1": 4, "score_2": 2, "ranking": 2}');
  });

  it("puts the principle before the responses, only with supports_principle_role", async () => {
    const metadata = { principle: "Judge impartially.", response_1: "A", response_2: "B" };
    const on = await sent(await server(), [{ role: "user", content: "Prompt" }], metadata);
    expect(on.messages.slice(-3)).toEqual([
      { role: "principle", content: "Judge impartially." },
      { role: "response_1", content: "A" },
      { role: "response_2", content: "B" },
    ]);
    const off = await sent(await server({ supports_principle_role: false }), [{ role: "user", content: "Prompt" }], metadata);
    expect(off.messages.map((m) => m.role)).toEqual(["user", "response_1", "response_2"]);
    const empty = await sent(await server(), [{ role: "user", content: "Prompt" }], { principle: "", response_1: "A", response_2: "B" });
    expect(empty.messages.map((m) => m.role)).toEqual(["user", "response_1", "response_2"]);
  });

  it("no or empty metadata leaves the conversation as it is; a system message stays a system message", async () => {
    const instance = await server();
    expect((await sent(instance, [{ role: "user", content: "Prompt" }, { role: "assistant", content: "Answer." }])).messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect((await sent(instance, [{ role: "user", content: "Prompt" }], {})).messages.map((m) => m.role)).toEqual(["user"]);
    const system = await sent(instance, [{ role: "system", content: "You are a helpful assistant." }, { role: "user", content: "Hi" }], { response_1: "A", response_2: "B" });
    expect(system.messages).toEqual([
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "Hi" },
      { role: "response_1", content: "A" },
      { role: "response_2", content: "B" },
    ]);
  });

  it("accepts NeMo Gym's genrm_model.yaml fields once given an engine URL, and says what to set without one", () => {
    const yaml = parseYaml(readFileSync(new URL("../../test/fixtures/nemo_gym/responses_api_models/genrm_model/configs/genrm_model.yaml", import.meta.url), "utf8"));
    const { entrypoint: _e, hf_home: _h, vllm_serve_env_vars: _v, vllm_serve_kwargs: _k, debug: _d, ...fields } = yaml.genrm_model.responses_api_models.genrm_model;
    for (const key of ["hf_home", "vllm_serve_env_vars", "vllm_serve_kwargs", "debug"]) expect(genrmModel.noEffectFields).toHaveProperty(key);
    expect(GenRMModelConfig.parse({ ...fields, base_url: "http://127.0.0.1:1/v1" })).toMatchObject({ supports_principle_role: true, uses_reasoning_parser: true });
    const missing = GenRMModelConfig.safeParse(fields);
    expect(missing.success).toBe(false);
    expect(missing.error!.issues[0]!.message).toMatch(/running engine.*base_url/);
  });
});
