// Shared by the multiple-choice and QA ports (issue 15): runs one of NeMo Gym's own config files,
// unchanged, from a NeMo Gym-shaped checkout with `gym eval run`, the fake engine answering each
// prompt with a scripted text (usually the text NeMo Gym recorded for that row), and reads back the
// rollouts and the aggregate metrics file.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeEngine } from "../doubles/fake_engine.js";
import { runGym, startGym, waitForOutput, type GymResult } from "./cli.js";
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

export interface ServedConfig {
  /** Base URL of the resources server the config defines. */
  url: string;
  stop(): Promise<void>;
}

/**
 * `gym env start --config resources_servers/<id>/configs/<file>` from a NeMo Gym-shaped checkout, for
 * NeMo Gym's "serve only the resources server" configs (no agent, no model). The file is unchanged; its
 * fixed port (8001, shared by several such configs) is overridden to a free one on the command line.
 */
export async function serveNemoGymConfig(id: string, file: string): Promise<ServedConfig> {
  const checkout = nemoGymCheckout([id]);
  const child = startGym(["env", "start", "--config", `resources_servers/${id}/configs/${file}`, "--head-port", "0", `${id}.resources_servers.${id}.port=0`], { cwd: checkout.root });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const closed = new Promise((resolve) => child.once("close", resolve));
      child.kill("SIGTERM");
      await closed;
    }
    checkout.remove();
  };
  try {
    const table = await waitForOutput(child, (t) => t.includes("head server:"), 60_000);
    const port = new RegExp(`^${id}\\s+resources_servers\\s+${id}\\s+http://[\\d.]+:(\\d+)`, "m").exec(table)?.[1];
    if (!port) throw new Error(`no ${id} server in:\n${table}`);
    return { url: `http://127.0.0.1:${port}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** POSTs JSON, returning the status and parsed body. */
export async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}
