// NeMo Gym's config directives, applied after every source is merged and before `${...}` resolution:
//   `_inherit_from: a.b`   (or the value `${inherit_from:a.b}`) — this block becomes a copy of the block
//                          at `a.b`, with its own keys merged on top; the block at `a.b` is removed
//                          (so a benchmark's isolated copy replaces the generic instance it came from);
//   `_copy: a.b`           (or `${copy:a.b}`) — the same, but `a.b` stays;
//   `_delete_key: "x, y"`  — drop these keys of the block (after inheriting, for keys it inherits).
// Sources are read from the config as it was before any directive ran, as NeMo Gym does. Behaviour
// matched with NeMo Gym 07d6b0d (nemo_gym/global_config.py, `_recursively_swap_keys`).
import { ProblemList } from "./errors.js";
import type { Provenance } from "./provenance.js";
import { cloneData, formatPath, getAt, isMapping, type ConfigPath, type Mapping } from "./tree.js";

export const INHERIT_FROM_KEY = "_inherit_from";
export const COPY_KEY = "_copy";
export const DELETE_KEY_KEY = "_delete_key";

/** Whether `config` uses any directive anywhere (cheap check, so configs without them stay untouched). */
function usesDirectives(value: unknown): boolean {
  if (typeof value === "string") return value.startsWith("${inherit_from:") || value.startsWith("${copy:");
  if (Array.isArray(value)) return value.some(usesDirectives);
  if (!isMapping(value)) return false;
  return Object.entries(value).some(([k, v]) => k === INHERIT_FROM_KEY || k === COPY_KEY || k === DELETE_KEY_KEY || usesDirectives(v));
}

// OmegaConf.merge: mappings key by key, anything else replaced.
function mergeData(base: unknown, top: Mapping): Mapping {
  const out: Mapping = isMapping(base) ? cloneData(base) : {};
  for (const [key, value] of Object.entries(top)) {
    const existing = out[key];
    out[key] = isMapping(existing) && isMapping(value) ? mergeData(existing, value) : cloneData(value);
  }
  return out;
}

/** Applies the directives in place; throws one ConfigError listing every bad reference. */
export function applyInheritance(config: Mapping, provenance: Provenance): void {
  if (!usesDirectives(config)) return;
  const frozen = cloneData(config);
  const problems = new ProblemList();

  const where = (path: ConfigPath) => {
    const source = provenance.sourceOf(path);
    return `\`${formatPath(path)}\`${source ? ` (set in ${source})` : ""}`;
  };

  const visit = (node: Mapping, path: ConfigPath): void => {
    for (const [key, value] of Object.entries(node)) {
      const here = [...path, key];
      let pendingDeletes: string[] = [];
      if (isMapping(value) && Object.hasOwn(value, DELETE_KEY_KEY)) {
        const raw = value[DELETE_KEY_KEY];
        delete value[DELETE_KEY_KEY];
        if (typeof raw !== "string") {
          problems.add(`${where([...here, DELETE_KEY_KEY])} must be a comma-separated string of keys, not ${JSON.stringify(raw)}.`);
        } else {
          const keys = raw.split(",").map((k) => k.trim()).filter(Boolean);
          for (const k of keys) if (Object.hasOwn(value, k)) delete value[k];
          pendingDeletes = keys.filter((k) => !Object.hasOwn(value, k));
        }
      }
      if (isMapping(value)) visit(value, here);
      else if (Array.isArray(value)) value.forEach((item, i) => isMapping(item) && visit(item, [...here, String(i)]));

      let from: string | undefined;
      let inherit = false;
      let directive = "";
      if (typeof value === "string" && (value.startsWith("${inherit_from:") || value.startsWith("${copy:"))) {
        inherit = value.startsWith("${inherit_from:");
        directive = inherit ? "${inherit_from:…}" : "${copy:…}";
        from = value.slice(value.indexOf(":") + 1, value.endsWith("}") ? -1 : undefined);
      } else if (isMapping(value) && (Object.hasOwn(value, INHERIT_FROM_KEY) || Object.hasOwn(value, COPY_KEY))) {
        inherit = Object.hasOwn(value, INHERIT_FROM_KEY);
        directive = inherit ? INHERIT_FROM_KEY : COPY_KEY;
        const raw = value[directive];
        delete value[directive];
        if (typeof raw !== "string" || raw === "") {
          problems.add(`${where(here)}: \`${directive}\` must be a dotted config path such as \`math_with_judge\`, not ${JSON.stringify(raw)}.`);
          continue;
        }
        from = raw;
      }
      if (from === undefined) {
        if (pendingDeletes.length > 0 && isMapping(value)) problems.add(`${where(here)}: \`${DELETE_KEY_KEY}\` names key(s) it does not have: ${pendingDeletes.join(", ")}.`);
        continue;
      }
      const fromPath = from.split(".");
      const source = getAt(frozen, fromPath);
      if (!source.found) {
        const top = Object.keys(frozen).filter((k) => isMapping(frozen[k]));
        problems.add(`${where(here)}: \`${directive}: ${from}\` names a config path that does not exist; top-level blocks: ${top.join(", ") || "(none)"}.`);
        continue;
      }
      const sourceLabel = provenance.sourceOf(fromPath);
      if (inherit) {
        const parent = getAt(config, fromPath.slice(0, -1));
        if (parent.found && isMapping(parent.value)) {
          delete parent.value[fromPath[fromPath.length - 1]!];
          provenance.removed(fromPath);
        }
      }
      const result: unknown = isMapping(value) ? mergeData(source.value, value) : cloneData(source.value);
      if (pendingDeletes.length > 0) {
        if (!isMapping(result)) {
          problems.add(`${where(here)}: \`${DELETE_KEY_KEY}\` applies to a mapping, but \`${from}\` is not one.`);
        } else {
          const absent = pendingDeletes.filter((k) => !Object.hasOwn(result as Mapping, k));
          if (absent.length > 0) problems.add(`${where(here)}: \`${DELETE_KEY_KEY}\` names key(s) that neither it nor \`${from}\` has: ${absent.join(", ")}.`);
          for (const k of pendingDeletes) delete (result as Mapping)[k];
        }
      }
      node[key] = result;
      const own = provenance.sourceOf(here);
      provenance.replaced(here, `${own ?? "the config"} (${directive}: ${from}${sourceLabel ? `, defined in ${sourceLabel}` : ""})`);
    }
  };
  visit(config, []);
  problems.throwIfAny();
}

