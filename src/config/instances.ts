// Which top-level keys are server instances, and their NeMo Gym shape:
//   <instance name>:
//     <server type>:          # resources_servers | responses_api_agents | responses_api_models
//       <implementation id>:  # simple_agent, vllm_model, example_multi_step, ...
//         <fields>
// Any other top-level key (policy_base_url, num_repeats, config_paths, ...) is a global setting.
import { ServerType } from "../protocol/index.js";
import type { ProblemList } from "./errors.js";
import type { Provenance } from "./provenance.js";
import { listNames, nearest } from "./suggest.js";
import { isMapping, type Mapping } from "./tree.js";

export const SERVER_TYPES: readonly ServerType[] = ServerType.options;

export interface InstanceShape {
  name: string;
  type: ServerType;
  implementation: string;
  /** The fields as written (metadata keys included), before the implementation's schema sees them. */
  rawFields: Mapping;
}

export function isServerType(value: unknown): value is ServerType {
  return typeof value === "string" && (SERVER_TYPES as readonly string[]).includes(value);
}

/**
 * The instances of a merged config. Shape problems are added to `problems`; a top-level mapping that
 * only *nearly* names a server type (`resources_server:`) is reported rather than silently treated as
 * a global setting, since that typo would otherwise make a whole server vanish.
 */
export function findInstances(config: Mapping, provenance: Provenance, problems: ProblemList): InstanceShape[] {
  const instances: InstanceShape[] = [];
  for (const [name, value] of Object.entries(config)) {
    if (!isMapping(value)) continue;
    const from = (...path: string[]) => fromSource(provenance, [name, ...path]);
    const types = Object.keys(value).filter(isServerType);
    if (types.length === 0) {
      for (const [key, inner] of Object.entries(value)) {
        const hit = isMapping(inner) ? nearest(key, SERVER_TYPES) : undefined;
        if (hit) {
          problems.add(
            `\`${name}\` looks like a server instance, but \`${key}\`${from(key)} is not a server type. Did you mean \`${hit}\`? Server types are ${listNames(SERVER_TYPES)}.`,
          );
        }
      }
      continue;
    }
    if (types.length > 1) {
      problems.add(`Instance \`${name}\`${from()} has several server types (${listNames(types)}); an instance is exactly one server.`);
      continue;
    }
    const type = types[0] as ServerType;
    for (const key of Object.keys(value)) {
      if (key !== type) {
        problems.add(
          `Instance \`${name}\` has \`${key}\`${from(key)} beside \`${type}\`; fields belong under \`${name}.${type}.<implementation id>\`.`,
        );
      }
    }
    const byId = value[type];
    const ids = isMapping(byId) ? Object.keys(byId) : [];
    if (ids.length !== 1 || !isMapping(byId)) {
      const what = ids.length === 0 ? "names no implementation id" : `names several implementation ids (${listNames(ids)})`;
      problems.add(`Instance \`${name}\`${from(type)} ${what} under \`${type}\`; it needs exactly one, e.g. \`${exampleId(type)}\`.`);
      continue;
    }
    const implementation = ids[0] as string;
    const fields = byId[implementation];
    // `simple_agent:` with nothing under it is an implementation with all-default fields.
    if (fields !== null && fields !== undefined && !isMapping(fields)) {
      problems.add(`Instance \`${name}\`${from(type, implementation)}: the fields of \`${implementation}\` must be a mapping, not a ${Array.isArray(fields) ? "list" : typeof fields}.`);
      continue;
    }
    instances.push({ name, type, implementation, rawFields: fields ?? {} });
  }
  return instances;
}

/** ` (from <source>)` for a path, or nothing when the source is unknown. */
export function fromSource(provenance: Provenance, path: readonly string[]): string {
  const source = provenance.sourceOf(path);
  return source ? ` (from ${source})` : "";
}

function exampleId(type: ServerType): string {
  return { resources_servers: "example_multi_step", responses_api_agents: "simple_agent", responses_api_models: "vllm_model" }[type];
}
