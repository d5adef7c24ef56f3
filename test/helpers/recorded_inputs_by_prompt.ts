// NeMo Gym's recorded rollouts (data/example_rollouts.jsonl) carry no `_ng_task_index` and are not
// in example.jsonl's order, and most omit the row fields `/verify` reads. `gym eval reverify --inputs`
// joins by (task, rollout) index, as NeMo Gym's does, so this writes the inputs file a real run would
// have materialized for them: line i of the rollouts is task i, and its input row is the example row
// whose prompt (every input message's role and text) is the rollout's own.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { environmentFolder } from "./nemo_gym_catalog.js";

type Row = Record<string, any>;

const readRows = (path: string): Row[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Row);

function textOf(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return content.map((part: any) => (typeof part?.text === "string" ? part.text : "")).join("");
}

/** The prompt as a comparable string: role and text of every input message. */
export function promptKey(row: Row): string {
  const input = row.responses_create_params?.input;
  const messages = typeof input === "string" ? [{ role: "user", content: input }] : (input ?? []);
  return JSON.stringify(messages.map((m: any) => [m.role ?? null, textOf(m.content)]));
}

/**
 * Writes `<dir>/<id>_inputs.jsonl`, one row per recorded rollout (task index = its line), each the
 * example row with the same prompt. Throws naming the line when no example row has it.
 */
export function recordedInputsFile(id: string, dir: string, options: { examplesPath?: string; rolloutsPath?: string } = {}): string {
  const data = join(environmentFolder(id), "data");
  const examples = readRows(options.examplesPath ?? join(data, "example.jsonl"));
  const rollouts = readRows(options.rolloutsPath ?? join(data, "example_rollouts.jsonl"));
  const byPrompt = new Map(examples.map((row) => [promptKey(row), row]));
  const lines = rollouts.map((rollout, index) => {
    const row = byPrompt.get(promptKey(rollout));
    if (!row) throw new Error(`${id} example_rollouts.jsonl line ${index + 1}: no example row has its prompt`);
    return JSON.stringify({ ...row, _ng_task_index: index, _ng_rollout_index: 0 });
  });
  const path = join(dir, `${id}_inputs.jsonl`);
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}
