// The bundled CLI that `npm run build` writes (scripts/bundle_cli.ts, issue 23's start-up): the
// files package.json and the tests name run the bundle, and every bundled module of Gymkit's own
// still finds its files where tsc put them. The CLI tests (test/cli_*.test.ts and the others that
// spawn dist/cli/main.js) run it end to end.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ENTRIES, LIBRARY_ENTRIES } from "../scripts/bundle_cli.js";
import { NEMO_GYM_EXAMPLES, REPO_ROOT, runGym } from "./helpers/cli.js";
import { startFakeEngine } from "./doubles/fake_engine.js";

const DIST = join(REPO_ROOT, "dist");
const BUNDLE = join(DIST, "bundle");

/** The source files a bundle file was made of (its source map's list). */
function sourcesOf(file: string): string[] {
  return (JSON.parse(readFileSync(join(BUNDLE, `${file}.map`), "utf8")) as { sources: string[] }).sources;
}

function bundleChunks(): string[] {
  return readdirSync(BUNDLE).filter((f) => f.endsWith(".js"));
}

function chunkWith(chunks: string[], source: string): string {
  return chunks.find((f) => sourcesOf(f).some((s) => s.endsWith(source)))!;
}

/** The sources of the bundle files `entries` import statically, transitively (`import()`ed ones load on use). */
function staticSources(entries: string[]): string[] {
  const loaded = new Set<string>();
  const visit = (file: string) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    const text = readFileSync(join(BUNDLE, file), "utf8");
    for (const match of text.matchAll(/(?:^|[;}\n])\s*(?:import|export)\s*(?:[\w${}\s,*]+from\s*)?"\.\/([\w.-]+\.js)"/g)) visit(match[1]!);
  };
  entries.forEach(visit);
  return [...loaded].flatMap(sourcesOf);
}

/** The module a stub imports or re-exports, as an absolute path. */
function stubTarget(file: string): string {
  const text = readFileSync(join(DIST, file), "utf8");
  const match = /^(?:import|export \* from) "([^"]+)";$/m.exec(text);
  expect(match, `dist/${file} is not a bundle stub (was \`npm run build\` run?):\n${text.slice(0, 200)}`).not.toBeNull();
  return resolve(dirname(join(DIST, file)), match![1]!);
}

describe("the bundled CLI", () => {
  it("every bin and export of package.json is a stub of its own bundle entry", () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { bin: Record<string, string>; exports: Record<string, { default?: string }> };
    const stubs = new Map<string, string>(Object.entries({ ...ENTRIES, ...LIBRARY_ENTRIES }).map(([name, file]) => [`dist/${file}`, name]));
    const named = [...Object.values(pkg.bin), ...Object.values(pkg.exports).flatMap((e) => (e.default ? [e.default.replace(/^\.\//, "")] : []))];
    for (const file of new Set(named)) {
      const name = stubs.get(file);
      expect(name, `${file} (named by package.json) is not bundled`).toBeDefined();
      expect(stubTarget(file.replace(/^dist\//, ""))).toBe(join(BUNDLE, `${name}.js`));
      expect(existsSync(join(BUNDLE, `${name}.js`))).toBe(true);
    }
    expect(readFileSync(join(DIST, "cli", "main.js"), "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("bundled modules see their own tsc output's URL as import.meta.url, and those files exist", () => {
    const files = readdirSync(BUNDLE).filter((f) => f.endsWith(".js"));
    const rewritten: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(BUNDLE, file), "utf8");
      for (const match of text.matchAll(/(.{0,160})import\.meta\.url/g)) {
        const before = match[1]!;
        if (before.endsWith("__gymCreateRequire(")) continue; // the banner's require for CommonJS packages
        if (before.endsWith('replayExampleRollouts(env, new URL("./data/", ')) continue; // text `gym env init` writes
        const own = /__gymOwnModuleUrl\d*\s*=\s*new URL\("([^"]+)",\s*$/.exec(before);
        expect(own, `${file}: a bare import.meta.url (would be the bundle's own URL): …${match[0]}`).not.toBeNull();
        rewritten.push(own![1]!);
      }
    }
    // Among them the worker pools, the built-in configs' root and the viewer's assets.
    expect(rewritten).toEqual(expect.arrayContaining(["../verifiers/math/pool.js", "../config/builtin_configs.js", "../viewer/page.js"]));
    for (const path of new Set(rewritten)) expect(existsSync(fileURLToPath(new URL(path, `file://${BUNDLE}/`))), path).toBe(true);
  });

  it("a vllm_model `eval run` loads none of what such a run never uses (jinja, pino, semver, light-my-request)", () => {
    const chunks = bundleChunks();
    // What the command and the model server load before any `import()`.
    const sources = staticSources(["src/cli/eval_run.ts", "src/models/vllm_model.ts"].map((source) => chunkWith(chunks, source)));
    expect(sources.some((s) => s.includes("node_modules/fastify/"))).toBe(true);
    expect(sources.some((s) => s.endsWith("src/models/token_turn.ts"))).toBe(true);
    for (const unused of ["@huggingface/jinja", "pino", "semver", "light-my-request", "@fastify/proxy-addr"]) {
      expect(sources.filter((s) => s.includes(`node_modules/${unused}/`)), unused).toEqual([]);
    }
    // Not bundled at all: Fastify requires them from its own location on first use.
    const everything = chunks.flatMap(sourcesOf);
    for (const outside of ["pino", "semver", "light-my-request"]) expect(everything.filter((s) => s.includes(`node_modules/${outside}/`)), outside).toEqual([]);
    expect(everything.some((s) => s.includes("node_modules/@huggingface/jinja/"))).toBe(true);
  });

  it("a server's own process (--process-per-server) and a plain `env start` load no collector, head internals, YAML or protocol layers", () => {
    const child = staticSources(["instance_process.js"]);
    expect(child.some((s) => s.endsWith("src/orchestrate/instance.ts"))).toBe(true);
    for (const unused of ["src/orchestrate/start.ts", "src/orchestrate/head.ts", "src/collect/collect.ts", "src/collect/service.ts", "src/orchestrate/python_server.ts", "src/protocols/serve.ts", "node_modules/yaml/", "node_modules/ws/"]) {
      expect(child.filter((s) => s.includes(unused)), unused).toEqual([]);
    }
    const envStart = staticSources([chunkWith(bundleChunks(), "src/cli/env_start.ts")]);
    for (const unused of ["src/protocols/index.ts", "src/protocols/openenv/server.ts", "node_modules/ws/"]) {
      expect(envStart.filter((s) => s.includes(unused)), unused).toEqual([]);
    }
  });

  it("a one-row `eval run` calls its engine through the bundled undici, without node:http2 or node:tls", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-bundle-undici-"));
    const engine = await startFakeEngine();
    try {
      // At exit, the child writes which of Node's built-ins it loaded and which CommonJS files it required.
      const report = join(dir, "loaded.json");
      const preload = join(dir, "preload.mjs");
      writeFileSync(
        preload,
        `import { createRequire } from "node:module"; import { writeFileSync } from "node:fs";\n` +
          `const cache = createRequire(import.meta.url).cache;\n` +
          `process.on("exit", () => writeFileSync(${JSON.stringify(report)}, JSON.stringify({ builtins: process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)), required: Object.keys(cache) })));\n`,
      );
      const input = join(dir, "one.jsonl");
      writeFileSync(input, readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").split("\n")[0] + "\n");
      const run = await runGym(
        ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-i", input, "-o", join(dir, "out.jsonl"), "--quiet"],
        { env: { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` } },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(engine.requests.length).toBeGreaterThan(0); // the engine hops went over a socket, through undici
      const loaded = JSON.parse(readFileSync(report, "utf8")) as { builtins: string[]; required: string[] };
      expect(loaded.builtins).toContain("http");
      expect(loaded.builtins.filter((m) => ["http2", "tls", "internal/http2/core"].includes(m))).toEqual([]);
      expect(loaded.required.filter((f) => f.includes(`${join("node_modules", "undici")}`))).toEqual([]);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
