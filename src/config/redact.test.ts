// Secrets are hidden before a config is printed; the YAML printer round-trips.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { isSecretKey, redactSecrets, toYaml } from "./index.js";

describe("redactSecrets", () => {
  const config = {
    policy_api_key: "sk-live-123",
    policy_base_url: "http://127.0.0.1:8000/v1",
    dummy_key_holder: { openai_api_key: "dummy", OPENAI_API_KEY: "sk-upper", empty_api_key: "", none_api_key: null },
    hf_token: "hf_abc",
    accessToken: "abc",
    client_secret: 12345,
    db: { password: "hunter2", user: "me" },
    secrets: { any: "value", nested: ["a", ""] },
    max_output_tokens: 1024,
    tokenizer: "Qwen/Qwen3-8B",
    return_tokens_as_token_ids: true,
    list: [{ api_key: "x" }],
    auth: { token: "t", api_key_file: "/path/is/not/secret", use_token: true },
  };

  it("hides non-empty secret values except `dummy`, and keeps everything else", () => {
    expect(redactSecrets(config)).toEqual({
      policy_api_key: "***",
      policy_base_url: "http://127.0.0.1:8000/v1",
      dummy_key_holder: { openai_api_key: "dummy", OPENAI_API_KEY: "***", empty_api_key: "", none_api_key: null },
      hf_token: "***",
      accessToken: "***",
      client_secret: "***",
      db: { password: "***", user: "me" },
      secrets: { any: "***", nested: ["***", ""] },
      max_output_tokens: 1024,
      tokenizer: "Qwen/Qwen3-8B",
      return_tokens_as_token_ids: true,
      list: [{ api_key: "***" }],
      auth: { token: "***", api_key_file: "/path/is/not/secret", use_token: true },
    });
  });

  it("does not modify its input", () => {
    redactSecrets(config);
    expect(config.policy_api_key).toBe("sk-live-123");
  });

  it("classifies keys by words", () => {
    expect(["api_key", "apiKey", "x-api-key", "auth_token", "PASSWORD", "apikey", "aws_secret_key"].every(isSecretKey)).toBe(true);
    expect(["max_tokens", "tokenizer", "keyword", "api_base", "monkey", "prompt_token_ids", "token_budget"].some(isSecretKey)).toBe(false);
  });
});

describe("toYaml", () => {
  it("round-trips and does not fold long strings", () => {
    const data = { a: { b: [1, "two", null], url: `http://x/${"y".repeat(200)}`, prompt: "word ".repeat(60).trim() }, shared: { k: 1 } };
    const text = toYaml({ ...data, again: data.shared });
    expect(parse(text)).toEqual({ ...data, again: { k: 1 } });
    expect(text).not.toContain("&");
    expect(text).toContain(`prompt: ${"word ".repeat(60).trim()}\n`);
  });
});
