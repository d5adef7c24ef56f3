// `gym env init ID`: scaffolds a new environment folder (see environment_kit/scaffold.ts).
import { relative, resolve } from "node:path";
import { scaffoldEnvironment } from "../environment_kit/scaffold.js";
import { builtinIds } from "../orchestrate/registry.js";
import { UsageError } from "./exit.js";

export function envInit(id: string, options: { dir?: string }): void {
  // A built-in id always wins over an entrypoint, so the new module would never run.
  if (builtinIds("resources_servers").includes(id)) throw new UsageError(`"${id}" is a built-in environment; choose another id`);
  const dir = resolve(options.dir ?? id);
  let files: string[];
  try {
    files = scaffoldEnvironment({ id, dir });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const shown = relative(process.cwd(), dir) || ".";
  process.stdout.write(
    `created ${shown}/: ${files.join(", ")}\n\n` +
      `next:\n` +
      `  node --test ${shown}/test.mjs\n` +
      `  npx gym eval run --config ${shown}/configs/${id}.yaml -i ${shown}/data/example.jsonl -o results/${id}.jsonl \\\n` +
      `    --model-type vllm_model --model-url http://127.0.0.1:8000/v1 --model MODEL\n`,
  );
}
