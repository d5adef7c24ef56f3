// Re-records examples/quickstart_recording.jsonl: runs the quickstart through `vllm_model` against
// the fake engine (a scripted policy that plays the example environments) with `record_path` on.
// Run with: npm run build && node --import tsx scripts/record_quickstart.ts
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startFakeEngine } from "../test/doubles/fake_engine.js";
import { REPO_ROOT, runGym } from "../test/helpers/cli.js";

const recording = join(REPO_ROOT, "examples", "quickstart_recording.jsonl");
rmSync(recording, { force: true });
const engine = await startFakeEngine({ model: "scripted-example-policy" });
const result = await runGym([
  "eval",
  "run",
  "--config",
  "examples/quickstart.yaml",
  "--model-type",
  "vllm_model",
  "--model-url",
  engine.baseUrl,
  "--model",
  "scripted-example-policy",
  "-o",
  join(tmpdir(), "quickstart_recording_run.jsonl"),
  `++policy_model.responses_api_models.vllm_model.record_path=${recording}`,
]);
await engine.close();
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exit(result.code ?? 1);
