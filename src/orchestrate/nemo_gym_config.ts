// The merged config in the shape NeMo Gym's own programs read it (matched against NVIDIA-NeMo/Gym
// 07d6b0d, nemo_gym/server_utils.py and nemo_gym/global_config.py):
// - every server block `<instance>.<server type>.<implementation id>` carries the `host` and `port`
//   the server listens on: NeMo Gym's collector, its servers and ng_status find each other by them;
// - `head_server: {host, port}` names the head server;
// - the head answers `GET /global_config_dict_yaml` with the YAML text encoded as a JSON string
//   (its handler returns a str, which FastAPI sends as JSON), and clients `json.loads` it.
import { toYaml } from "../config/to_yaml.js";
import type { ServerType } from "../protocol/index.js";

/** Where one server instance listens. */
export interface Placement {
  name: string;
  server_type: ServerType;
  implementation: string;
  host: string;
  port: number;
}

export interface HeadAddress {
  host: string;
  port: number;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A copy of `config` with each placed instance's server block holding its `host` and `port`, and
 * `head_server` naming the head. An instance missing from `config` (e.g. built from a command-line
 * shortcut after composition) gets a block of its own, so that every running server can be found.
 */
export function placedConfig(config: unknown, placements: readonly Placement[], head: HeadAddress): Record<string, unknown> {
  const out: Record<string, unknown> = isMapping(config) ? structuredClone(config) : {};
  for (const p of placements) {
    const instance = isMapping(out[p.name]) ? (out[p.name] as Record<string, unknown>) : (out[p.name] = {});
    const byId = isMapping(instance[p.server_type]) ? (instance[p.server_type] as Record<string, unknown>) : (instance[p.server_type] = {});
    const fields = isMapping(byId[p.implementation]) ? (byId[p.implementation] as Record<string, unknown>) : (byId[p.implementation] = {});
    fields.host = p.host;
    fields.port = p.port;
  }
  out.head_server = { host: head.host, port: head.port };
  return out;
}

/**
 * The body of `GET /global_config_dict_yaml`: the YAML text as a JSON string, as NeMo Gym's head sends
 * it. Written by toYaml: no folded lines, no anchors/aliases for objects the config shares.
 */
export function encodeGlobalConfig(config: unknown): string {
  return JSON.stringify(toYaml(config));
}

/**
 * Reads a `/global_config_dict_yaml` body from either kind of head: NeMo Gym's (and Gymkit's since
 * it matched NeMo Gym) JSON-encoded YAML text, or plain YAML text from a Gymkit head of before.
 */
export function decodeGlobalConfigText(body: string): string {
  const trimmed = body.trim();
  if (trimmed.startsWith('"')) {
    try {
      const text: unknown = JSON.parse(trimmed);
      if (typeof text === "string") return text;
    } catch {
      // not JSON after all: plain YAML that starts with a quoted scalar
    }
  }
  return body;
}
