// Gymkit as a user's project sees it: installed (from this checkout, offline), its bin, its public
// entry points (`gymkit`, `gymkit/testing`, `gymkit/client`) and their type declarations.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "./helpers/cli.js";

const run = promisify(execFile);
let project: string;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "gym-consumer-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  // A folder install links this checkout (its dependencies are already here): nothing is downloaded.
  await run("npm", ["install", REPO_ROOT, "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: project });
}, 120_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("an installed gymkit", () => {
  it("its bin scaffolds an environment whose own test passes against the installed package", async () => {
    await run(join(project, "node_modules", ".bin", "gym"), ["env", "init", "my_env"], { cwd: project });
    const tested = await run(process.execPath, ["--test", "my_env/test.mjs"], { cwd: project });
    expect(tested.stdout).toContain("# pass 3");
  });

  it("installs NeMo Gym's legacy entry points as bins that re-enter gym", async () => {
    const version = await run(join(project, "node_modules", ".bin", "ng_version"), [], { cwd: project });
    expect(version.stdout.trim()).toBe("0.1.0");
    expect(version.stderr).toContain("`ng_version` is deprecated; use `gym --version` instead");
    const help = await run(join(project, "node_modules", ".bin", "nemo_gym_help"), [], { cwd: project });
    expect(help.stdout).toContain("Usage: gym");
  });

  it("exports its public API to JavaScript, and nothing else by deep path", async () => {
    writeFileSync(
      join(project, "check.mjs"),
      `import { defineEnvironment, passAtKMetrics, z } from "gymkit";
import { startInstance } from "gymkit/testing";
import { runRollouts } from "gymkit/client";
console.log([defineEnvironment, passAtKMetrics, z.object, startInstance, runRollouts].map((f) => typeof f).join(","));
try { await import("gymkit/dist/collect/scheduler.js"); console.log("deep import allowed"); } catch (e) { console.log(e.code); }
`,
    );
    const { stdout } = await run(process.execPath, ["check.mjs"], { cwd: project });
    expect(stdout.trim().split("\n")).toEqual(["function,function,function,function,function", "ERR_PACKAGE_PATH_NOT_EXPORTED"]);
  });

  it("ships type declarations: a TypeScript environment type-checks, and a wrong one does not", async () => {
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: true, skipLibCheck: true, target: "es2023", types: [] } }));
    const env = (reward: string) => `import { defineEnvironment, outputText, z } from "gymkit";
export default defineEnvironment({
  id: "typed_env",
  description: "typed",
  rowFields: { expected_answer: z.string() },
  setup: () => ({ calls: 0 }),
  tools: { ping: { description: "p", args: z.object({ n: z.number() }), handler: ({ n }, ctx) => ({ n: n + ++ctx.resources.calls }) } },
  verify: (request) => ({ reward: ${reward} }),
});
`;
    const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    // Both files in one compilation (tsc's start-up and the package's types loaded once, not twice): the
    // right one must draw no diagnostic, the wrong one its type error.
    writeFileSync(join(project, "env.ts"), env("outputText(request.response).includes(request.expected_answer) ? 1 : 0"));
    writeFileSync(join(project, "wrong_env.ts"), env("request.expected_answer"));
    const output = await run(process.execPath, [tsc, "-p", project], { cwd: project }).then(
      () => "",
      (error: { stdout: string }) => error.stdout,
    );
    const diagnostics = output.split("\n").filter((line) => /^\S+\.ts\(\d+,\d+\): error /.test(line));
    expect(diagnostics.length, output).toBeGreaterThan(0);
    expect(diagnostics.filter((line) => !line.startsWith("wrong_env.ts(")), output).toEqual([]);
    expect(output).toContain("Type 'string' is not assignable to type 'number'");
  }, 180_000);
});
