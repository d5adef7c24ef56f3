// The files written beside `out.jsonl`, named as NeMo Gym names them.
import { basename, dirname, extname, join } from "node:path";

export function siblingPaths(outputPath: string) {
  const ext = extname(outputPath);
  const stem = join(dirname(outputPath), basename(outputPath, ext));
  return {
    output: outputPath,
    materialized: `${stem}_materialized_inputs.jsonl`,
    failures: `${stem}_failures.jsonl`,
    /** `reverify --judge-failed-only --append`: the recovered rollouts, before they are added to this output. */
    recovered: `${stem}_recovered.jsonl`,
    metrics: `${stem}_aggregate_metrics.json`,
    /** Output of the `--model-server-cmd` inference server, when gym starts one. */
    modelServerLog: `${stem}_model_server.log`,
    /** Folder of the NeMo Gym Python servers' output (`<instance>.log`), when gym launches any. */
    serverLogs: `${stem}_server_logs`,
    /** What decided the plan (input hash, repeats, limit, shard, …), so `--resume` can refuse a different run. */
    fingerprint: `${stem}_plan_fingerprint.json`,
    /** Written when every requested pair has its final outcome (shards are merged only when done). */
    done: `${outputPath}.done`,
  };
}
