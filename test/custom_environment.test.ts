// Your own environment, run by Gymkit from the module a config's `entrypoint` names: the shipped
// example (examples/custom_environment) end to end in both layouts, and every way a wrong entrypoint
// is reported. The environment module imports "gymkit" itself, as a user's would.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine, type Turn } from "./doubles/fake_engine.js";
import { readJsonlFile, REPO_ROOT, runGym } from "./helpers/cli.js";

const CONFIG = join(REPO_ROOT, "examples", "custom_environment", "word_count.yaml");

/** Calls count_words on the sentence, then answers with the count the tool returned. */
function wordCountPolicy(turns: Turn[]): { text?: string; toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }> } {
  const tool = turns.find((t) => t.role === "tool");
  if (tool) return { text: `The sentence has ${JSON.parse(tool.content).count} words.\n${JSON.parse(tool.content).count}` };
  const user = turns.find((t) => t.role === "user")!.content;
  return { toolCalls: [{ name: "count_words", arguments: { text: user.slice(user.indexOf(":") + 1) } }] };
}

let engine: FakeEngine;
let dir: string;
beforeAll(async () => {
  engine = await startFakeEngine({ policy: wordCountPolicy });
  dir = mkdtempSync(join(tmpdir(), "gym-custom-env-"));
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

const model = () => ["--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m"];

describe("examples/custom_environment (entrypoint: word_count.mjs)", () => {
  for (const layout of [[], ["--process-per-server"]]) {
    it(`collects and scores every row ${layout.length ? "with a process per server" : "in one process"}`, async () => {
      // Run from another directory: entrypoint is relative to the config file, not the working directory.
      const output = join(dir, `out${layout.length}.jsonl`);
      const input = join(REPO_ROOT, "examples", "custom_environment", "word_count.jsonl");
      const result = await runGym(["eval", "run", "--config", CONFIG, ...model(), "-i", input, "-o", output, "--num-repeats", "2", "--quiet", ...layout], { cwd: dir });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const rows = readJsonlFile(output);
      expect(rows).toHaveLength(8);
      for (const row of rows) {
        expect(row.reward).toBe(1);
        expect(row.extracted_answer).toBe(row.expected_count);
        // The tool really ran in the environment (with the Intl.Segmenter its setup made).
        const toolOutput = row.response.output.find((item: { type: string }) => item.type === "function_call_output");
        expect(JSON.parse(toolOutput.output)).toEqual({ count: row.expected_count });
      }
      const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8"));
      expect(metrics[0].agent_metrics["pass@2/accuracy"]).toBe(100);
      expect(metrics[0].agent_metrics["majority@2/accuracy"]).toBe(100);
    }, 60_000);
  }
});

describe("a wrong entrypoint is one clear error (exit 2)", () => {
  /** A config with one environment `id` whose entrypoint is `entrypoint`, written to its own folder. */
  function configWith(id: string, entrypoint: string | undefined, files: Record<string, string> = {}): string {
    const folder = mkdtempSync(join(dir, "cfg-"));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
    const path = join(folder, "env.yaml");
    writeFileSync(path, `mine:\n  resources_servers:\n    ${id}:\n${entrypoint ? `      entrypoint: ${entrypoint}\n` : "      {}\n"}`);
    return path;
  }
  const resolve = (config: string) => runGym(["env", "resolve", "--config", config], { cwd: dir });
  const gymkitIndex = JSON.stringify(join(REPO_ROOT, "dist", "index.js"));

  it("a module that exports another id says which", async () => {
    const config = configWith("other_id", "env.mjs", {
      "env.mjs": `import { defineEnvironment } from ${gymkitIndex};\nexport default defineEnvironment({ id: "word_count", description: "", verify: () => ({ reward: 0 }) });\n`,
    });
    const result = await resolve(config);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('exports the resources_servers implementation "word_count", but the config asks for the resources_servers implementation "other_id"');
  });

  it("a module without a default export says what to export", async () => {
    const result = await resolve(configWith("mine_env", "env.mjs", { "env.mjs": "export const x = 1;\n" }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("must export a server implementation as its default export");
  });

  it("a module that throws while loading is reported with its error", async () => {
    const result = await resolve(configWith("mine_env", "env.mjs", { "env.mjs": 'throw new Error("boom at import");\n' }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("failed to load: boom at import");
  });

  it("a missing file, a Python server and a TypeScript file are each named", async () => {
    const missing = await resolve(configWith("mine_env", "nowhere.mjs"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/entrypoint \S+nowhere\.mjs does not exist/);
    const python = await resolve(configWith("mine_env", "app.py", { "app.py": "" }));
    // Outside a NeMo Gym checkout: what to pass to have gym launch it, or where to point at a running one.
    expect(python.stderr).toContain("Its entrypoint `app.py` is a NeMo Gym Python server; to run it, pass --nemo-gym-root DIR");
    expect(python.stderr).toContain("url: http://host:port");
    const typescript = await resolve(configWith("mine_env", "env.ts", { "env.ts": "export default 1;\n" }));
    expect(typescript.code).toBe(2);
    expect(typescript.stderr).toContain("is TypeScript, which Node 20 does not import by itself");
    expect(typescript.stderr).toContain('NODE_OPTIONS="--import tsx"');
  });

  it("a TypeScript entrypoint loads when gym runs under a loader", async () => {
    const config = configWith("typed_env", "env.ts", {
      "env.ts": `import { defineEnvironment } from ${gymkitIndex};\nconst reward: number = 1;\nexport default defineEnvironment({ id: "typed_env", description: "typed", verify: () => ({ reward }) });\n`,
    });
    const result = await runGym(["env", "resolve", "--config", config], { cwd: REPO_ROOT, env: { NODE_OPTIONS: "--import tsx" } });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("typed_env");
  });

  it("an unknown id without an entrypoint suggests one", async () => {
    const result = await resolve(configWith("mcqaa", undefined));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Did you mean `mcqa`?");
    expect(result.stderr).toContain("set `entrypoint:` to the JavaScript module that exports it");
  });

  it("a built-in id keeps ignoring NeMo Gym's Python entrypoint", async () => {
    const result = await resolve(configWith("mcqa", "app.py"));
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });
});
