// Validates the instances of a resolved config against the implementations that will run them:
// the server type and implementation id must exist, refs must point at instances of the right type,
// and each instance's fields (metadata keys aside) must pass the implementation's strict schema.
// Every problem is collected and thrown together as one ConfigError.
import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { z } from "zod";
import type { ServerType } from "../protocol/index.js";
import { ProblemList } from "./errors.js";
import { METADATA_KEYS } from "./metadata_keys.js";
import { findInstances, fromSource, type InstanceShape } from "./instances.js";
import { Provenance } from "./provenance.js";
import { checkoutOfConfigFile, serverDir, type PythonServerLocation } from "./nemo_gym_checkout.js";
import { checkRefs } from "./refs.js";
import { schemaKeysAt } from "./schema_keys.js";
import { didYouMean, listNames } from "./suggest.js";
import { formatPath, type Mapping } from "./tree.js";

export interface ResolvedInstance {
  name: string;
  type: ServerType;
  implementation: string;
  /** Fields after the implementation's schema (defaults filled in), plus `host`/`port` when given. */
  fields: Record<string, unknown>;
  /** The source that defined the instance (a file path, env.yaml, or a command-line override). */
  source: string;
  /** Absolute path of the module of an implementation Gymkit does not ship (from `entrypoint`). */
  entrypoint?: string;
  /** One line per field that was accepted but has no effect here (the implementation's noEffectFields). */
  warnings?: string[];
  /** A NeMo Gym Python server of a checkout, which gym launches as NeMo Gym's `ng_run` does. */
  python?: PythonServerLocation;
  /** The `url` of a server already running elsewhere: gym does not start it, only checks it answers. */
  externalUrl?: string;
}

/** What validation needs of an implementation: its schema and the NeMo Gym fields it accepts to no effect. */
export interface ValidatedImplementation {
  configSchema: z.ZodType<any>;
  noEffectFields?: Readonly<Record<string, string>>;
}

/**
 * The registry functions validation needs. The caller hands it in (orchestrate/registry.ts for the real
 * one; tests inject small fakes), so config/ never imports the implementations it validates.
 */
export interface ImplementationRegistry {
  loadImplementation(type: ServerType, id: string, entrypoint?: string): Promise<ValidatedImplementation>;
  builtinIds(type: ServerType): string[];
}

export interface ValidateOptions {
  registry: ImplementationRegistry;
  /** Where each key came from, for messages; without it, messages name no files. */
  provenance?: Provenance;
  /** Accept refs to model instances that are not defined (see checkRefs). */
  allowUndefinedModels?: boolean;
  /**
   * A NeMo Gym checkout (`--nemo-gym-root`, NEMO_GYM_ROOT): an id Gymkit does not ship whose
   * `entrypoint` is a `.py` file is its Python server there. Without it, the checkout is inferred
   * from a config file that sits at `<root>/<server type>/<id>/configs/`.
   */
  nemoGymRoot?: string;
}

const METADATA = new Set<string>(METADATA_KEYS);

export async function validateConfig(config: Mapping, options: ValidateOptions): Promise<ResolvedInstance[]> {
  const reg = options.registry;
  const provenance = options.provenance ?? new Provenance();
  const problems = new ProblemList();
  const shapes = findInstances(config, provenance, problems);
  checkRefs(shapes, provenance, problems, options.allowUndefinedModels);
  const results = await Promise.all(shapes.map((shape) => validateInstance(shape, reg, provenance, problems, options.nemoGymRoot)));
  problems.throwIfAny();
  return results.filter((r): r is ResolvedInstance => r !== undefined);
}

async function validateInstance(
  shape: InstanceShape,
  reg: ImplementationRegistry,
  provenance: Provenance,
  problems: ProblemList,
  nemoGymRoot: string | undefined,
): Promise<ResolvedInstance | undefined> {
  const { name, type, implementation: id, rawFields } = shape;
  const base = [name, type, id];
  const from = (...path: PropertyKey[]) => fromSource(provenance, [...base, ...path.map(String)]);
  const source = provenance.sourceOf([name]) ?? "unknown source";
  // A server already running elsewhere: whatever its implementation, gym neither configures nor starts it.
  if (rawFields.url !== undefined) {
    const url = externalUrlOf(rawFields.url);
    if (url === undefined) {
      problems.add(`Instance \`${name}\` field \`url\`${from("url")} must be the http://host:port address of a server already running, not ${JSON.stringify(rawFields.url)}.`);
      return undefined;
    }
    return { name, type, implementation: id, fields: {}, source, externalUrl: url };
  }
  const known = reg.builtinIds(type);
  if (!known.includes(id) && typeof rawFields.entrypoint === "string" && rawFields.entrypoint.endsWith(".py")) {
    return pythonInstance(shape, known, provenance, problems, nemoGymRoot, from);
  }
  // Your own implementation: an id Gymkit does not ship, from the module `entrypoint` names.
  const entrypoint = known.includes(id) ? undefined : entrypointOf(rawFields, provenance, [...base, "entrypoint"]);
  if (!known.includes(id) && entrypoint === undefined) {
    problems.add(
      `Instance \`${name}\`${from()} uses the ${type} implementation \`${id}\`, which does not exist.${didYouMean(id, known)} Available ${type}: ${listNames(known)}; ` +
        `for your own, set \`entrypoint:\` to the JavaScript module that exports it, or \`url:\` to the http://host:port of one already running.`,
    );
    return undefined;
  }
  let impl: ValidatedImplementation;
  try {
    impl = await reg.loadImplementation(type, id, entrypoint);
  } catch (error) {
    problems.add(`Instance \`${name}\`${from(...(entrypoint ? ["entrypoint"] : []))}: could not load the ${type} implementation \`${id}\`: ${(error as Error).message}`);
    return undefined;
  }

  const own: Mapping = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(rawFields)) {
    if (METADATA.has(key)) continue;
    const why = impl.noEffectFields && Object.hasOwn(impl.noEffectFields, key) ? impl.noEffectFields[key] : undefined;
    if (why === undefined) own[key] = value;
    else warnings.push(`Instance \`${name}\` (${type}/${id}) field \`${key}\`${from(key)} has no effect in Gymkit: ${why}.`);
  }
  const parsed = impl.configSchema.safeParse(own);
  const placement = checkPlacement(rawFields, name, from);
  for (const problem of placement) problems.add(problem);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      for (const problem of describeIssue(issue, impl.configSchema, name, `${type}/${id}`, from)) problems.add(problem);
    }
    return undefined;
  }
  if (placement.length > 0) return undefined;

  const fields: Record<string, unknown> = { ...(parsed.data as Record<string, unknown>) };
  // host/port are metadata to the implementation but the orchestrator binds them.
  if (rawFields.host !== undefined) fields.host = rawFields.host;
  if (rawFields.port !== undefined) fields.port = rawFields.port;
  return {
    name,
    type,
    implementation: id,
    fields,
    source,
    ...(entrypoint ? { entrypoint } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** `http(s)://host[:port][/]` as given, or undefined when it is not such a URL. */
function externalUrlOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") return undefined;
  return value.replace(/\/+$/, "");
}

/**
 * An id Gymkit does not ship whose entrypoint is a Python file: a NeMo Gym server, launched from its
 * checkout (given, or inferred from where its config file sits). Its fields are NeMo Gym's to
 * validate (pydantic, in the child); only host/port, which gym binds, are checked here.
 */
function pythonInstance(
  shape: InstanceShape,
  known: string[],
  provenance: Provenance,
  problems: ProblemList,
  nemoGymRoot: string | undefined,
  from: (...path: PropertyKey[]) => string,
): ResolvedInstance | undefined {
  const { name, type, implementation: id, rawFields } = shape;
  const entrypoint = String(rawFields.entrypoint);
  const configFile = provenance.sourceOf([name, type, id, "entrypoint"]);
  const root = nemoGymRoot ?? (configFile && existsSync(configFile) ? checkoutOfConfigFile(configFile, type, id) : undefined);
  if (root === undefined) {
    problems.add(
      `Instance \`${name}\`${from()} uses the ${type} implementation \`${id}\`, which does not exist: Gymkit has no built-in of that name.${didYouMean(id, known)} Available ${type}: ${listNames(known)}. ` +
        `Its entrypoint \`${entrypoint}\` is a NeMo Gym Python server; to run it, pass --nemo-gym-root DIR (or set NEMO_GYM_ROOT) naming a NeMo Gym checkout that holds ${type}/${id}/, ` +
        `whose venv NeMo Gym has built (${type}/${id}/.venv, e.g. by one \`ng_run\` of this config), or name the Python with --nemo-gym-python PATH (config key nemo_gym_python). ` +
        `If it already runs elsewhere, set \`${name}.${type}.${id}.url: http://host:port\` instead.`,
    );
    return undefined;
  }
  if (isAbsolute(entrypoint)) {
    problems.add(`Instance \`${name}\` field \`entrypoint\`${from("entrypoint")} must be relative to the server's folder ${serverDir(root, type, id)} (NeMo Gym runs it from there), not ${entrypoint}.`);
    return undefined;
  }
  const dir = serverDir(root, type, id);
  if (!existsSync(resolve(dir, entrypoint))) {
    problems.add(
      `Instance \`${name}\`${from("entrypoint")}: the NeMo Gym server ${resolve(dir, entrypoint)} does not exist. ` +
        `Check that ${root} is a NeMo Gym checkout (--nemo-gym-root / NEMO_GYM_ROOT) holding ${type}/${id}/${entrypoint}.`,
    );
    return undefined;
  }
  const placement = checkPlacement(rawFields, name, from);
  for (const problem of placement) problems.add(problem);
  if (placement.length > 0) return undefined;
  const fields: Record<string, unknown> = {};
  if (rawFields.host !== undefined) fields.host = rawFields.host;
  if (rawFields.port !== undefined) fields.port = typeof rawFields.port === "string" ? Number(rawFields.port) : rawFields.port;
  return { name, type, implementation: id, fields, source: provenance.sourceOf([name]) ?? "unknown source", python: { root: resolve(root), dir, entrypoint } };
}

/**
 * `entrypoint` as an absolute path: relative to the config file that set it (as NeMo Gym's is
 * relative to its server's folder), or to the working directory when it came from an override.
 */
function entrypointOf(rawFields: Mapping, provenance: Provenance, path: string[]): string | undefined {
  const value = rawFields.entrypoint;
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const source = provenance.sourceOf(path);
  const base = source && existsSync(source) && statSync(source).isFile() ? dirname(resolve(source)) : process.cwd();
  return resolve(base, value);
}

// host and port are metadata (stripped before the schema), so they are checked here.
function checkPlacement(raw: Mapping, name: string, from: (...path: PropertyKey[]) => string): string[] {
  const out: string[] = [];
  const { host, port } = raw;
  if (host !== undefined && (typeof host !== "string" || host === "")) {
    out.push(`Instance \`${name}\` field \`host\`${from("host")} must be a host name or address, not ${JSON.stringify(host)}.`);
  }
  const portNumber = typeof port === "string" && /^\d+$/.test(port) ? Number(port) : port;
  if (port !== undefined && !(Number.isInteger(portNumber) && (portNumber as number) >= 0 && (portNumber as number) <= 65535)) {
    out.push(`Instance \`${name}\` field \`port\`${from("port")} must be a port number (0-65535, 0 picks a free one), not ${JSON.stringify(port)}.`);
  }
  return out;
}

function describeIssue(
  issue: z.core.$ZodIssue,
  schema: z.ZodType,
  name: string,
  what: string,
  from: (...path: PropertyKey[]) => string,
): string[] {
  const at = issue.path;
  if (issue.code === "unrecognized_keys") {
    const valid = schemaKeysAt(schema, at);
    // At the top, metadata keys are accepted too, so they are fair suggestions.
    const candidates = at.length === 0 ? [...valid, ...METADATA_KEYS] : valid;
    return issue.keys.map((key) => {
      const path = [...at, key];
      return `Instance \`${name}\` (${what}) has an unrecognised field \`${formatPath(path.map(String))}\`${from(...path)}.${didYouMean(key, candidates)} Valid fields${at.length ? ` of \`${formatPath(at.map(String))}\`` : ""}: ${listNames(valid.sort())}.`;
    });
  }
  const field = at.length ? `field \`${formatPath(at.map(String))}\`` : "fields";
  const missing = issue.code === "invalid_type" && / received undefined$/.test(issue.message);
  const reason = missing ? "is required but missing" : `is invalid: ${issue.message}`;
  return [`Instance \`${name}\` (${what}) ${field}${from(...at)} ${reason}.`];
}
