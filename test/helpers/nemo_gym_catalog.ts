// What every port of a NeMo Gym catalog environment is tested against: a folder shaped like a NeMo Gym
// checkout (so NeMo Gym's own config files run unchanged from its root), and the environment's recorded
// rollouts (NeMo Gym's `data/example_rollouts.jsonl`, real model outputs with NeMo Gym's rewards).
//
// NeMo Gym's config files are copied verbatim under test/fixtures/nemo_gym/resources_servers/<id>/configs/
// (Apache-2.0, see that folder's README); the example rows and recorded rollouts live once, in the
// environment's own folder (src/environments/<id>/data/), and the checkout links them in.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, runGym, type GymResult } from "./cli.js";

export const NEMO_GYM_FIXTURES = join(REPO_ROOT, "test", "fixtures", "nemo_gym");

/** The environment folder of a built-in environment. */
export const environmentFolder = (id: string) => join(REPO_ROOT, "src", "environments", id);

export interface NemoGymCheckout {
  /** Run gym from here, with NeMo Gym's repo-relative paths (`resources_servers/<id>/configs/<x>.yaml`). */
  root: string;
  remove(): void;
}

/**
 * A temporary NeMo Gym-shaped checkout holding, for each id, `resources_servers/<id>/configs` (NeMo
 * Gym's config files) and `resources_servers/<id>/data` (the environment folder's data), both linked.
 * Also links NeMo Gym's model configs, so a config list may name `responses_api_models/...` too.
 */
export function nemoGymCheckout(ids: readonly string[]): NemoGymCheckout {
  const root = mkdtempSync(join(tmpdir(), "gym-nemo-checkout-"));
  for (const id of ids) {
    const configs = join(NEMO_GYM_FIXTURES, "resources_servers", id, "configs");
    if (!existsSync(configs)) throw new Error(`no NeMo Gym configs for ${id} under ${configs}`);
    const target = join(root, "resources_servers", id);
    mkdirSync(target, { recursive: true });
    symlinkSync(configs, join(target, "configs"));
    symlinkSync(join(environmentFolder(id), "data"), join(target, "data"));
  }
  symlinkSync(join(NEMO_GYM_FIXTURES, "responses_api_models"), join(root, "responses_api_models"));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** The environment's recorded rollouts, parsed (each a verify response with NeMo Gym's `reward`). */
export function recordedRollouts(id: string): Array<Record<string, any>> {
  const path = join(environmentFolder(id), "data", "example_rollouts.jsonl");
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, any>);
}

export interface ReverifiedRecording {
  result: GymResult;
  /** NeMo Gym's recorded reward per line of example_rollouts.jsonl. */
  recorded: number[];
  /** Gymkit's reward for the same line, from `gym eval reverify`'s output (matched by task and rollout index). */
  reverified: Array<number | undefined>;
  /** The re-verified output lines, in the recorded file's order. */
  rows: Array<Record<string, any> | undefined>;
}

/**
 * Re-scores the recorded rollouts with `gym eval reverify` (through the real CLI and server) and pairs
 * each new reward with NeMo Gym's recorded one. `args` picks the environment's config (e.g.
 * `["--resources-server", id]`, or `["--config", "resources_servers/<id>/configs/<x>.yaml"]` with
 * `cwd` set to a `nemoGymCheckout` root) and may add `--inputs FILE` where the rollout lines omit
 * input fields.
 */
export async function reverifyRecorded(id: string, args: readonly string[], options: { cwd?: string; rolloutsPath?: string } = {}): Promise<ReverifiedRecording> {
  const dir = mkdtempSync(join(tmpdir(), `gym-recorded-${id}-`));
  try {
    const rolloutsPath = options.rolloutsPath ?? join(environmentFolder(id), "data", "example_rollouts.jsonl");
    const recordedRows = readFileSync(rolloutsPath, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, any>);
    const output = join(dir, "reverified.jsonl");
    const result = await runGym(["eval", "reverify", ...args, "--rollouts", rolloutsPath, "-o", output, "--overwrite", "--quiet"], { cwd: options.cwd, timeoutMs: 180_000 });
    const written = existsSync(output)
      ? readFileSync(output, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, any>)
      : [];
    const keyOf = (row: Record<string, any>, line: number) => `${row._ng_task_index ?? line}/${row._ng_rollout_index ?? 0}`;
    const byKey = new Map(written.map((row, line) => [keyOf(row, line), row]));
    const rows = recordedRows.map((row, line) => byKey.get(keyOf(row, line)));
    return { result, recorded: recordedRows.map((row) => row.reward as number), reverified: rows.map((row) => row?.reward as number | undefined), rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
