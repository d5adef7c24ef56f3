#!/usr/bin/env node
// NeMo Gym's resources_servers/reasoning_gym/scripts/create_dataset.py (07d6b0d) for the families
// Gymkit generates (generators.ts): the same flags, rows and bytes (json.dumps of each row, one a line).
//
//   node dist/environments/reasoning_gym/scripts/create_dataset.js --task gcd --size 500 --seed 42 --output data/train_gcd.jsonl
//   … --task chain_sum --config '{"max_terms": 8, "allow_negation": true}' --output data/train.jsonl
//
// --tasks / --category / --all-tasks (the library's composite dataset) are refused with a pointer to
// NeMo Gym's script: the composite's sampling is not ported. Exit codes: 0 written, 1 as the Python
// script exits on a bad config or no rows, 2 a usage error.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createDataset, DatasetConfigError, GENERATED_FAMILIES, nemoGymRow } from "../generators.js";
import { pyJsonDumps } from "../python_json.js";

const BIG = "\u0000bigint:";

/** JSON.parse keeping integers beyond 2^53 exact (as BigInt), as Python's json.loads does. */
export function parseConfigJson(text: string): Record<string, unknown> {
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (token) =>
    /^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token)) ? JSON.stringify(BIG + token) : token,
  );
  const value: unknown = JSON.parse(marked, (_key, v: unknown) => (typeof v === "string" && v.startsWith(BIG) ? BigInt(v.slice(BIG.length)) : v));
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new SyntaxError("the config must be a JSON object");
  return value as Record<string, unknown>;
}

export function main(argv: string[], log: (line: string) => void = console.log): number {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        task: { type: "string" }, tasks: { type: "string" }, category: { type: "string" }, "all-tasks": { type: "boolean" },
        size: { type: "string", default: "500" }, seed: { type: "string", default: "42" }, config: { type: "string", default: "{}" },
        output: { type: "string" }, help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    log(`create_dataset: ${(error as Error).message}`);
    return 2;
  }
  if (values.help) {
    log(`usage: create_dataset --task TASK [--size 500] [--seed 42] [--config JSON] --output FILE\n(generated tasks: ${GENERATED_FAMILIES.join(", ")})`);
    return 0;
  }
  const chosen = ["task", "tasks", "category", "all-tasks"].filter((k) => values[k as keyof typeof values] !== undefined);
  if (chosen.length !== 1) {
    log("create_dataset: give exactly one of --task, --tasks, --category, --all-tasks");
    return 2;
  }
  if (values.task === undefined) {
    log(`create_dataset: --${chosen[0]} makes the library's composite dataset, which Gymkit does not generate; use --task with one of ${GENERATED_FAMILIES.join(", ")}, or NeMo Gym's scripts/create_dataset.py`);
    return 2;
  }
  if (values.output === undefined) {
    log("create_dataset: --output FILE is required");
    return 2;
  }
  const size = Number(values.size);
  const seed = Number(values.seed);
  if (!Number.isSafeInteger(size) || !Number.isSafeInteger(seed) || seed < 0) {
    log(`create_dataset: --size and --seed take integers (seed ≥ 0), not ${JSON.stringify(values.size)} / ${JSON.stringify(values.seed)}`);
    return 2;
  }
  let config: Record<string, unknown>;
  try {
    config = parseConfigJson(values.config!);
  } catch (error) {
    log(`Error parsing config JSON: ${(error as Error).message}`);
    return 1;
  }
  let item;
  try {
    item = createDataset(values.task, size, seed, config);
  } catch (error) {
    if (!(error instanceof DatasetConfigError)) throw error;
    log(`Error creating dataset ${values.task}: ${error.message}`);
    return 1;
  }
  const lines: string[] = [];
  for (let i = 0; i < size; i++) lines.push(pyJsonDumps(nemoGymRow(item(i))) + "\n");
  if (lines.length === 0) {
    log("Error: No entries generated");
    return 1;
  }
  const output = resolve(values.output);
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, lines.join(""));
  log(`Generated ${lines.length} entries for ${values.task}\nDataset saved to ${values.output}`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
