import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: keep files in separate forks but never more than the machine has.
    pool: "forks",
    maxWorkers: 2,
  },
});
