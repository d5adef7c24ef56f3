import { configDefaults, defineConfig } from "vitest/config";

const ALL_TESTS = ["test/**/*.test.ts", "src/**/*.test.ts"];

/**
 * Test files that run many sandboxed programs (bubblewrap + Python per run, the sandbox's slots sized
 * to the machine's cores). Two of them side by side, or one beside another busy file, fight for the
 * same two cores until their deadlines fire; so they run one at a time, after the rest, each with the
 * whole machine. Globs, so the files match wherever they live (test/ or beside their environment).
 */
const SANDBOX_HEAVY = ["**/code_gen*.test.ts", "**/python_tool*.test.ts", "**/sandbox*.test.ts", "src/sandbox/**/*.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
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
