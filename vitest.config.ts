import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const ALL_TESTS = ["test/**/*.test.ts", "src/**/*.test.ts"];

/**
 * Test files that run many sandboxed programs (bubblewrap + Python per run, the sandbox's slots sized
 * to the machine's cores). Two of them side by side, or one beside another busy file, fight for the
 * same two cores until their deadlines fire; so they run one at a time, after the rest, each with the
 * whole machine. An environment counts as sandboxed when its definition imports the sandbox, so a new
 * one is found from its own folder (adding an environment touches nothing outside it but the registry).
 */
const ENVIRONMENTS = fileURLToPath(new URL("./src/environments", import.meta.url));
const SANDBOXED_ENVIRONMENTS = readdirSync(ENVIRONMENTS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && importsSandbox(join(ENVIRONMENTS, entry.name, "index.ts")))
  .map((entry) => `src/environments/${entry.name}/**/*.test.ts`);
const SANDBOX_HEAVY = [...SANDBOXED_ENVIRONMENTS, "**/sandbox*.test.ts", "src/sandbox/**/*.test.ts"];

function importsSandbox(definition: string): boolean {
  return existsSync(definition) && /from "\.\.\/\.\.\/sandbox\//.test(readFileSync(definition, "utf8"));
}

export default defineConfig({
  test: {
    // Deadlines against hangs, not measurements: the CLI-heavy tests (many `gym` processes each) take
    // 5x longer on a 2-core machine at load 20 than on a quiet one, and must still pass there.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Two cores: keep files in separate forks but never more than the machine has.
    pool: "forks",
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "suite", include: ALL_TESTS, exclude: [...configDefaults.exclude, ...SANDBOX_HEAVY] } },
      // One worker and the default group order: Vitest runs these files alone, one after another,
      // once every other file has finished.
      { extends: true, test: { name: "sandbox", include: SANDBOX_HEAVY, exclude: [...configDefaults.exclude], maxWorkers: 1 } },
    ],
  },
});
