// Validates the instances of a resolved config against the implementations that will run them:
// the server type and implementation id must exist, refs must point at instances of the right type,
// and each instance's fields (metadata keys aside) must pass the implementation's strict schema.
// Every problem is collected and thrown together as one ConfigError.
import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { z } from "zod";
import type { ServerType } from "../protocol/index.js";
import { METADATA_KEYS, type ServerImplementation } from "../http/implementation.js";
import * as registry from "../orchestrate/registry.js";
import { ProblemList } from "./errors.js";
import { findInstances, fromSource, type InstanceShape } from "./instances.js";
import { Provenance } from "./provenance.js";
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
}

/** The registry functions validation needs; tests inject small fakes. */
export interface ImplementationRegistry {
  loadImplementation(type: ServerType, id: string, entrypoint?: string): Promise<ServerImplementation<any>>;
  builtinIds(type: ServerType): string[];
}

export interface ValidateOptions {
  registry?: ImplementationRegistry;
  /** Where each key came from, for messages; without it, messages name no files. */
  provenance?: Provenance;
  /** Accept refs to model instances that are not defined (see checkRefs). */
  allowUndefinedModels?: boolean;
}

const METADATA = new Set<string>(METADATA_KEYS);

export async function validateConfig(config: Mapping, options: ValidateOptions = {}): Promise<ResolvedInstance[]> {
  const reg = options.registry ?? registry;
  const provenance = options.provenance ?? new Provenance();
  const problems = new ProblemList();
  const shapes = findInstances(config, provenance, problems);
  checkRefs(shapes, provenance, problems, options.allowUndefinedModels);
  const results = await Promise.all(shapes.map((shape) => validateInstance(shape, reg, provenance, problems)));
  problems.throwIfAny();
  return results.filter((r): r is ResolvedInstance => r !== undefined);
}

async function validateInstance(
  shape: InstanceShape,
  reg: ImplementationRegistry,
  provenance: Provenance,
  problems: ProblemList,
): Promise<ResolvedInstance | undefined> {
  const { name, type, implementation: id, rawFields } = shape;
  const base = [name, type, id];
  const from = (...path: PropertyKey[]) => fromSource(provenance, [...base, ...path.map(String)]);
  const known = reg.builtinIds(type);
  // Your own implementation: an id Gymkit does not ship, from the module `entrypoint` names.
  // NeMo Gym configs point `entrypoint` at the Python server (app.py): beside an unknown id that is
  // most likely a typo'd built-in id, so it is reported as one.
  const entrypoint = known.includes(id) ? undefined : entrypointOf(rawFields, provenance, [...base, "entrypoint"]);
  const python = entrypoint?.endsWith(".py") ?? false;
  if (!known.includes(id) && (entrypoint === undefined || python)) {
    problems.add(
      `Instance \`${name}\`${from()} uses the ${type} implementation \`${id}\`, which does not exist.${didYouMean(id, known)} Available ${type}: ${listNames(known)}; ` +
        (python
          ? `its entrypoint \`${String(rawFields.entrypoint)}\` is a Python (NeMo Gym) server, which Gymkit does not run: run it with NeMo Gym and give its URL to a Gymkit agent, or write it with defineEnvironment and set \`entrypoint:\` to that JavaScript module.`
          : `for your own, set \`entrypoint:\` to the JavaScript module that exports it.`),
    );
    return undefined;
  }
  let impl: ServerImplementation<any>;
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
    source: provenance.sourceOf([name]) ?? "unknown source",
    ...(entrypoint ? { entrypoint } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
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
