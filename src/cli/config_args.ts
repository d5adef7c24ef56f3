// Turning the config-related flags every command shares into one resolved config: Gymkit flags
// become config paths and structured overrides, Hydra-style arguments pass through unchanged.
import type { ServerRef } from "../protocol/index.js";
import { environmentConfigPath, modelConfigPath, builtinIds, loadImplementation } from "../orchestrate/registry.js";
import type { InstanceSpec } from "../orchestrate/start.js";
import { checkSettings, composeConfig, ConfigError, redactSecrets, validateConfig, type ConfigCommand, type FlagOverride } from "../config/index.js";
import { didYouMean } from "../config/suggest.js";
import { existsSync } from "node:fs";

export interface CliConfigOptions {
  config: string[];
  resourcesServer?: string;
  modelType?: string;
  modelUrl?: string;
  model?: string;
  modelApiKey?: string;
  modelPath?: string;
}

export interface CliConfig {
  /** The merged, interpolated config (with secrets). */
  config: Record<string, unknown>;
  /** The same with secrets hidden, for printing and for the head server. */
  redacted: Record<string, unknown>;
  instances: InstanceSpec[];
  /** With `--resources-server ID`: the single agent serving that environment, if exactly one does. */
  onlyAgentOfResourcesServer?: string;
  /** With `environmentsOnly`: agent name → the environment it drives (from the dropped agents). */
  agentEnvironments: Map<string, string>;
}

function builtinPath(kind: "environment" | "model", id: string): string {
  const path = kind === "environment" ? environmentConfigPath(id) : modelConfigPath(id);
  if (!existsSync(path)) {
    const known = builtinIds(kind === "environment" ? "resources_servers" : "responses_api_models");
    const flag = kind === "environment" ? "--resources-server" : "--model-type";
    throw new ConfigError(`${flag} ${id}: no built-in ${kind} with that id.${didYouMean(id, known)} Built-in: ${known.join(", ")}.`);
  }
  return path;
}

export interface ResolveCliOptions {
  /**
   * Keep only environments (and the models they reference): for commands that call `/verify` and
   * never run a rollout, so an agent's unset `policy_model` is not an error.
   */
  environmentsOnly?: boolean;
  /** The command reading the config: settings it does not read are reported when typed on its command line. */
  command?: ConfigCommand;
}

function warn(message: string): void {
  process.stderr.write(`gym: warning: ${message}\n`);
}

export async function resolveCliConfig(overrides: string[], options: CliConfigOptions, how: ResolveCliOptions = {}): Promise<CliConfig> {
  const configPaths = [...options.config];
  if (options.resourcesServer) configPaths.push(builtinPath("environment", options.resourcesServer));
  const flags: FlagOverride[] = [];
  if (options.modelUrl !== undefined) flags.push({ path: ["policy_base_url"], value: options.modelUrl, flag: "--model-url" });
  if (options.model !== undefined) flags.push({ path: ["policy_model_name"], value: options.model, flag: "--model" });
  if (options.modelApiKey !== undefined) flags.push({ path: ["policy_api_key"], value: options.modelApiKey, flag: "--model-api-key" });
  if (options.modelPath !== undefined) flags.push({ path: ["policy_model_path"], value: options.modelPath, flag: "--model-path" });

  const composed = composeConfig({
    configPaths,
    overrides,
    flags,
    cwd: process.cwd(),
    // `--model-type` replaces whatever `policy_model` the configs define with the built-in one.
    replaceInstances: options.modelType ? { policy_model: builtinPath("model", options.modelType) } : undefined,
    // The API key is optional everywhere: engines such as vLLM accept any.
    defaults: { policy_api_key: "dummy" },
  });
  const agentEnvironments = new Map<string, string>();
  if (how.environmentsOnly) {
    const ofType = (type: string) =>
      Object.entries(composed.config).filter(([, value]) => value !== null && typeof value === "object" && type in (value as object)) as Array<[string, Record<string, Record<string, Record<string, unknown>>>]>;
    for (const [name, value] of ofType("responses_api_agents")) {
      for (const fields of Object.values(value.responses_api_agents ?? {})) {
        const env = (fields?.resources_server as ServerRef | undefined)?.name;
        if (env) agentEnvironments.set(name, env);
      }
      delete composed.config[name];
    }
    // Models nobody references any more (the policy) are dropped too; a judge model stays.
    const referenced = JSON.stringify(composed.config);
    for (const [name] of ofType("responses_api_models")) {
      if (!referenced.includes(`"name":"${name}"`)) delete composed.config[name];
    }
  }
  // Settings and instances are checked together, so one run reports every problem of the config.
  const settingsCheck = { command: how.command, provenance: composed.provenance, referenced: composed.referenced };
  let warnings: string[] = [];
  let settingsError: ConfigError | undefined;
  try {
    warnings = checkSettings(composed.config, settingsCheck);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    settingsError = error;
  }
  let validated: Awaited<ReturnType<typeof validateConfig>>;
  try {
    validated = await validateConfig(composed.config, { registry: { loadImplementation, builtinIds }, provenance: composed.provenance, allowUndefinedModels: how.environmentsOnly });
  } catch (error) {
    if (!(error instanceof ConfigError) || !settingsError) throw error;
    throw new ConfigError([...settingsError.problems, ...error.problems]);
  }
  if (settingsError) throw settingsError;
  for (const warning of [...warnings, ...validated.flatMap((instance) => instance.warnings ?? [])]) warn(warning);
  const resolved = { ...composed, instances: validated };

  const instances: InstanceSpec[] = resolved.instances.map((i) => ({ name: i.name, type: i.type, implementation: i.implementation, fields: i.fields, entrypoint: i.entrypoint }));
  let onlyAgentOfResourcesServer: string | undefined;
  if (options.resourcesServer) {
    const agents = instances.filter(
      (i) => i.type === "responses_api_agents" && (i.fields.resources_server as ServerRef | undefined)?.name === options.resourcesServer,
    );
    if (agents.length === 1) onlyAgentOfResourcesServer = agents[0]!.name;
  }
  return { config: resolved.config, redacted: redactSecrets(resolved.config) as Record<string, unknown>, instances, onlyAgentOfResourcesServer, agentEnvironments };
}
