// Judges for tests of LLM-judged environments: a judge engine (the fake engine double, scripted from
// the judge prompt) given to a config as a model instance, and the recorded answers of a rollouts
// file replayed as the judge (judge_replay_model). Both are extra config files passed with --config.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";

/**
 * A config file defining model instance `name` as vllm_model in front of the engine at `baseUrl`
 * (the fake engine's `baseUrl`, ending in /v1). Use it for a judge that the environment's config
 * names but does not define (simpleqa's `genrm_model`, physics_judge's `judge_model`, ...).
 */
export function judgeEngineConfig(dir: string, name: string, baseUrl: string, model = "judge"): string {
  const path = join(dir, `${name}_engine.yaml`);
  writeFileSync(path, stringify({ [name]: { responses_api_models: { vllm_model: { base_url: baseUrl, api_key: "dummy", model } } } }));
  return path;
}

export interface JudgeReplayOptions {
  /** The instance name the replayed judge gets (default `judge_replay`). */
  name?: string;
  rolloutsPath: string;
  /** Keys holding the judge answers, in call order (default `["judge_evaluations"]`). */
  keys?: string[];
  /** For lists of objects without a `response`: the field with the judge text. */
  textField?: string;
  checkRequests?: boolean;
}

/**
 * Arguments for `gym eval reverify` that replay a rollouts file's recorded judge answers as the judge
 * of environment instance `instance` (implementation `id`), through its `refField` (default
 * `judge_model_server`): a config defining the replay model, and an override pointing the
 * environment's judge reference at it.
 */
export function judgeReplayArgs(dir: string, instance: string, id: string, options: JudgeReplayOptions, refField = "judge_model_server"): string[] {
  const name = options.name ?? "judge_replay";
  const path = join(dir, `${name}.yaml`);
  const fields: Record<string, unknown> = { rollouts_path: options.rolloutsPath, judge_keys: options.keys ?? ["judge_evaluations"] };
  if (options.textField) fields.text_field = options.textField;
  if (options.checkRequests !== undefined) fields.check_requests = options.checkRequests;
  writeFileSync(path, stringify({ [name]: { responses_api_models: { judge_replay_model: fields } } }));
  return ["--config", path, `++${instance}.resources_servers.${id}.${refField}.name=${name}`];
}
