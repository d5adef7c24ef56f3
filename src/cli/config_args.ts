// Turning the config-related flags every command shares into one resolved config: Gymkit flags
// become config paths and structured overrides, Hydra-style arguments pass through unchanged.
import type { ServerRef } from "../protocol/index.js";
import { environmentConfigPath, modelConfigPath, builtinIds, loadImplementation } from "../orchestrate/registry.js";
import type { InstanceSpec } from "../orchestrate/start.js";
import { checkSettings, composeConfig, ConfigError, redactSecrets, validateConfig, type ConfigCommand, type FlagOverride } from "../config/index.js";
import { didYouMean } from "../config/suggest.js";
import { existsSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { nemoGymBuiltinPath } from "../config/builtin_configs.js";
import { checkoutConfigPath, looksLikeCheckout } from "../config/nemo_gym_checkout.js";
import type { StartOptions } from "../orchestrate/start.js";
import { benchmarkConfigPath } from "../benchmarks/definitions.js";

export interface CliConfigOptions {
  config: string[];
  resourcesServer?: string;
  modelType?: string;
  modelUrl?: string;
  model?: string;
  modelApiKey?: string;
  modelPath?: string;
  /** `NAME=URL`: model instance NAME defined as vllm_model in front of that engine (judges given by URL). */
  judgeUrl?: string[];
  /** `NAME=MODEL`: the model --judge-url NAME's engine serves. */
  judgeModel?: string[];
  /** A NeMo Gym checkout whose Python servers gym may launch (else NEMO_GYM_ROOT). */
  nemoGymRoot?: string;
  /** The Python that runs them (else config key nemo_gym_python, else each server's venv). */
  nemoGymPython?: string;
  /** Seconds a Python server may take to answer (default 600). */
  nemoGymReadyTimeout?: string;
  /** A shipped benchmark whose config is added (`aime25`, `livecodebench/v6_2408_2505`). */
  benchmark?: string;
  /** Where prepared benchmark data lives. */
  benchmarkCache?: string;
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

function builtinPath(kind: "environment" | "model", id: string, nemoGymRoot?: string): string {
  const path = kind === "environment" ? environmentConfigPath(id) : modelConfigPath(id);
  if (!existsSync(path)) {
    // An environment Gymkit lacks may be a NeMo Gym Python one of the checkout.
    const type = kind === "environment" ? "resources_servers" : "responses_api_models";
    const inCheckout = nemoGymRoot === undefined ? undefined : checkoutConfigPath(nemoGymRoot, `${type}/${id}/configs/${id}.yaml`);
    if (inCheckout !== undefined) return inCheckout;
    const known = builtinIds(type);
    const flag = kind === "environment" ? "--resources-server" : "--model-type";
    const python =
      kind === "environment"
        ? nemoGymRoot === undefined
          ? ` To run NeMo Gym's Python ${id}, pass --nemo-gym-root DIR (or set NEMO_GYM_ROOT) naming a NeMo Gym checkout that holds resources_servers/${id}/ (with its venv built by NeMo Gym, or --nemo-gym-python PATH); for one already running, give a config whose instance sets \`url: http://host:port\`.`
          : ` The NeMo Gym checkout ${nemoGymRoot} has no resources_servers/${id}/configs/${id}.yaml either.`
        : "";
    throw new ConfigError(`${flag} ${id}: Gymkit has no built-in ${kind} with that id.${didYouMean(id, known)} Built-in: ${known.join(", ")}.${python}`);
  }
  return path;
}

/** `--nemo-gym-root`, else NEMO_GYM_ROOT, as an absolute path; an error when it is not a checkout. */
function nemoGymRootOf(options: CliConfigOptions): string | undefined {
  const given = options.nemoGymRoot ?? (process.env.NEMO_GYM_ROOT || undefined);
  if (given === undefined) return undefined;
  const root = resolvePath(given);
  if (!looksLikeCheckout(root)) {
    const how = options.nemoGymRoot !== undefined ? "--nemo-gym-root" : "NEMO_GYM_ROOT";
    throw new ConfigError(`${how} ${given} is not a NeMo Gym checkout: it has no resources_servers/, responses_api_agents/ or responses_api_models/ folder. Name the folder you cloned NVIDIA-NeMo/Gym into.`);
  }
  return root;
}

/**
 * The line a command prints before launching NeMo Gym Python servers: which, where their output goes,
 * and (without `ray_head_node_address`) that each starts a Ray cluster of its own, as a NeMo Gym server
 * does when no cluster is named (ng_run starts one and hands its address to every server; gym does not).
 */
export function nemoGymLaunchNotice(resolved: CliConfig, logDir: string): string | undefined {
  const names = resolved.instances.filter((i) => i.python).map((i) => i.name);
  if (names.length === 0) return undefined;
  const ray = resolved.config.ray_head_node_address ? "" : "; each starts a Ray cluster of its own (set ray_head_node_address to have them join one)";
  return `starting NeMo Gym Python server(s) ${names.join(", ")}; their output: ${logDir}/<instance>.log${ray}`;
}

/** What startServers needs to launch NeMo Gym Python servers, from the flags and the config. */
export function nemoGymStartOptions(resolved: CliConfig, options: CliConfigOptions): Pick<StartOptions, "nemoGymConfig" | "python" | "pythonReadyTimeoutMs"> {
  const fromConfig = (key: string) => {
    const value = resolved.config[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string" || value === "") throw new ConfigError(`\`${key}\` must be a path, not ${JSON.stringify(value)}.`);
    return value;
  };
  const explicit = options.nemoGymPython ?? fromConfig("nemo_gym_python");
  const uvVenvDir = fromConfig("uv_venv_dir");
  let pythonReadyTimeoutMs: number | undefined; // startServers' default unless given
  if (options.nemoGymReadyTimeout !== undefined) {
    const seconds = Number(options.nemoGymReadyTimeout);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new ConfigError(`--nemo-gym-ready-timeout must be a number of seconds > 0, got ${options.nemoGymReadyTimeout}`);
    pythonReadyTimeoutMs = seconds * 1000;
  }
  return { nemoGymConfig: resolved.config, python: { explicit, uvVenvDir }, pythonReadyTimeoutMs };
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

/** `NAME=VALUE` pairs of a repeatable flag, by name; an error names the flag and the bad value. */
function namedValues(flag: string, values: readonly string[] | undefined): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const text of values ?? []) {
    const eq = text.indexOf("=");
    const name = eq > 0 ? text.slice(0, eq) : "";
    if (!/^[A-Za-z_][\w-]*$/.test(name) || eq === text.length - 1) throw new ConfigError(`${flag} ${text}: expected NAME=VALUE, e.g. ${flag} genrm_model=${flag === "--judge-url" ? "http://127.0.0.1:8000/v1" : "Qwen/Qwen3-8B"}`);
    pairs.set(name, text.slice(eq + 1));
  }
  return pairs;
}

/**
 * Model implementations that do more than pass requests to their engine (genrm_model turns the
 * comparison into GenRM's roles): `--judge-url` keeps such an instance and sets only its engine URL.
 */
const ENGINE_URL_IMPLEMENTATIONS = new Set(["genrm_model"]);

/**
 * The instances `--judge-url` defines: the configs' own genrm_model instance with that engine URL (it
 * keeps its request rewriting); otherwise a vllm_model in front of the running engine, replacing
 * whatever the configs define under that name
 * (NeMo Gym configs name judges they start on a GPU, or put on a hosted API, or do not define at all).
 */
function judgeInstances(options: CliConfigOptions): NonNullable<Parameters<typeof composeConfig>[0]>["defineInstances"] {
  const urls = namedValues("--judge-url", options.judgeUrl);
  const models = namedValues("--judge-model", options.judgeModel);
  for (const name of models.keys()) {
    if (!urls.has(name)) throw new ConfigError(`--judge-model ${name}=…: no --judge-url ${name}=URL defines that instance.${didYouMean(name, [...urls.keys()])}`);
  }
  const defineOne = (name: string, url: string) => (existing: Record<string, unknown> | undefined) => {
    const implementations = (existing?.responses_api_models ?? {}) as Record<string, Record<string, unknown> | null>;
    const [kept] = Object.keys(implementations).filter((id) => ENGINE_URL_IMPLEMENTATIONS.has(id));
    if (kept !== undefined && Object.keys(implementations).length === 1) {
      const fields = { ...(implementations[kept] ?? {}), base_url: url, ...(models.has(name) ? { model: models.get(name) } : {}) };
      return { ...existing, responses_api_models: { [kept]: fields } };
    }
    return { responses_api_models: { vllm_model: { base_url: url, api_key: "dummy", model: models.get(name) ?? name } } };
  };
  return Object.fromEntries([...urls].map(([name, url]) => [name, { source: `command-line flag \`--judge-url ${name}=…\``, definition: defineOne(name, url) }]));
}

export async function resolveCliConfig(overrides: string[], options: CliConfigOptions, how: ResolveCliOptions = {}): Promise<CliConfig> {
  const nemoGymRoot = nemoGymRootOf(options);
  const configPaths = [...options.config];
  if (options.resourcesServer) configPaths.push(builtinPath("environment", options.resourcesServer, nemoGymRoot));
  if (options.benchmark) configPaths.push(benchmarkConfigPath(options.benchmark));
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
    defineInstances: judgeInstances(options),
    // The API key is optional everywhere: engines such as vLLM accept any.
    defaults: { policy_api_key: "dummy" },
    // A NeMo Gym repo path maps to Gymkit's built-in copy, else (for an environment Gymkit lacks) to the checkout's file.
    builtinConfig: (path) => {
      const builtin = nemoGymBuiltinPath(path);
      if (builtin !== undefined && existsSync(builtin)) return builtin;
      return nemoGymRoot === undefined ? builtin : (checkoutConfigPath(nemoGymRoot, path) ?? builtin);
    },
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
    validated = await validateConfig(composed.config, { registry: { loadImplementation, builtinIds }, provenance: composed.provenance, allowUndefinedModels: how.environmentsOnly, nemoGymRoot });
  } catch (error) {
    if (!(error instanceof ConfigError) || !settingsError) throw error;
    throw new ConfigError([...settingsError.problems, ...error.problems]);
  }
  if (settingsError) throw settingsError;
  for (const warning of [...warnings, ...validated.flatMap((instance) => instance.warnings ?? [])]) warn(warning);
  const resolved = { ...composed, instances: validated };

  const instances: InstanceSpec[] = resolved.instances.map((i) => ({
    name: i.name,
    type: i.type,
    implementation: i.implementation,
    fields: i.fields,
    entrypoint: i.entrypoint,
    ...(i.python ? { python: i.python } : {}),
    ...(i.externalUrl ? { externalUrl: i.externalUrl } : {}),
  }));
  let onlyAgentOfResourcesServer: string | undefined;
  if (options.resourcesServer) {
    const agents = instances.filter(
      (i) => i.type === "responses_api_agents" && (i.fields.resources_server as ServerRef | undefined)?.name === options.resourcesServer,
    );
    if (agents.length === 1) onlyAgentOfResourcesServer = agents[0]!.name;
  }
  return { config: resolved.config, redacted: redactSecrets(resolved.config) as Record<string, unknown>, instances, onlyAgentOfResourcesServer, agentEnvironments };
}
