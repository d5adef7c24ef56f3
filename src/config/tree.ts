// Plain-data helpers for a parsed config: a tree of mappings, lists and scalars.

/** A YAML mapping as parsed: string keys, any values. */
export type Mapping = Record<string, unknown>;

/** A path from the config root, e.g. `["policy_model", "responses_api_models", "vllm_model", "base_url"]`. */
export type ConfigPath = readonly string[];

export function isMapping(value: unknown): value is Mapping {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `a.b.c`, the way users write paths in overrides and `${...}`. */
export function formatPath(path: ConfigPath): string {
  return path.join(".");
}

/** Structural copy of plain YAML data, so callers never share (and mutate) each other's trees. */
export function cloneData<T>(value: T): T {
  return structuredClone(value);
}

/** The value at `path`, or undefined when any step is missing (lists are indexed by number segments). */
export function getAt(root: unknown, path: ConfigPath): { found: boolean; value: unknown } {
  let node: unknown = root;
  for (const segment of path) {
    if (isMapping(node) && Object.hasOwn(node, segment)) node = node[segment];
    else if (Array.isArray(node) && /^\d+$/.test(segment) && Number(segment) < node.length) node = node[Number(segment)];
    else return { found: false, value: undefined };
  }
  return { found: true, value: node };
}
