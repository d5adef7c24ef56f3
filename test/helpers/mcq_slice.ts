// Shared by the multiple-choice and QA ports (issue 15): runs one of NeMo Gym's own config files,
// unchanged, from a NeMo Gym-shaped checkout with `gym eval run`, the fake engine answering each
// prompt with a scripted text (usually the text NeMo Gym recorded for that row), and reads back the
// rollouts and the aggregate metrics file.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeEngine } from "../doubles/fake_engine.js";
import { runGym, type GymResult } from "./cli.js";
import { nemoGymCheckout, recordedRollouts } from "./nemo_gym_catalog.js";

export interface ConfigRun {
  result: GymResult;
  /** Output rollouts, ordered by task then rollout index. */
  rows: Array<Record<string, any>>;
  /** The aggregate metrics file (one entry per agent). */
  metrics: Array<Record<string, any>>;
}

const readJsonl = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, any>);

/** The last user message of a row's `responses_create_params.input`, as text. */
export function promptOf(row: Record<string, any>): string {
  const input = row.responses_create_params.input;
  if (typeof input === "string") return input;
  const user = (input as Array<Record<string, any>>).findLast((m) => m.role === "user");
  const content = user?.content;
  return typeof content === "string" ? content : (content as Array<{ text?: string }>).map((p) => p.text ?? "").join("");
}

/** The assistant text of a recorded rollout (every output_text part of its messages, joined). */
export function recordedText(rollout: Record<string, any>): string {
  return (rollout.response.output as Array<Record<string, any>>)
    .filter((item) => item.type === "message")
    .flatMap((item) => item.content as Array<Record<string, any>>)
    .filter((part) => part.type === "output_text")
    .map((part) => part.text as string)
    .join("");
}

/** Prompt → recorded answer text, for the recorded rollouts whose prompt is one of the example rows'. */
export function recordedAnswers(id: string): Map<string, string> {
  return new Map(recordedRollouts(id).map((r) => [promptOf(r), recordedText(r)]));
}

/**
 * `gym eval run --config resources_servers/<id>/configs/<file> --input resources_servers/<id>/data/example.jsonl`
 * from a NeMo Gym-shaped checkout, against the fake engine answering `answers.get(prompt)`
 * ("I do not know." for any other prompt).
 */
export async function runNemoGymConfig(id: string, file: string, answers: ReadonlyMap<string, string>, extraArgs: readonly string[] = []): Promise<ConfigRun> {
  const checkout = nemoGymCheckout([id]);
  const engine = await startFakeEngine({
    policy: (turns) => ({ text: answers.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "I do not know." }),
  });
  const dir = mkdtempSync(join(tmpdir(), `gym-config-${id}-`));
  try {
    const output = join(dir, "out.jsonl");
    const result = await runGym(
      [
        "eval", "run",
        "--config", `resources_servers/${id}/configs/${file}`,
        "--input", `resources_servers/${id}/data/example.jsonl`,
        "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m",
        "-o", output, "--quiet", ...extraArgs,
      ],
      { cwd: checkout.root, timeoutMs: 120_000 },
    );
    if (result.code !== 0) return { result, rows: [], metrics: [] };
    const rows = readJsonl(output).sort((a, b) => a._ng_task_index - b._ng_task_index || a._ng_rollout_index - b._ng_rollout_index);
    const metrics = JSON.parse(readFileSync(join(dir, "out_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    return { result, rows, metrics };
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
    checkout.remove();
  }
}
