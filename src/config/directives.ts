// NeMo Gym's config directives, applied once on the fully merged config (files, env.yaml and the
// command line), before `${...}` interpolation — as NVIDIA-NeMo/Gym 07d6b0d nemo_gym/global_config.py
// does in its key-swapping pass:
//   key: {_copy: a.b, ...}          key = a copy of `a.b`, the directive's sibling keys merged on top
//   key: {_inherit_from: a.b, ...}  the same, and `a.b` itself is removed (a benchmark takes over an
//                                   environment's instance instead of running beside it)
//   key: "${copy:a.b}" / "${inherit_from:a.b}"   the same without the merge
//   key: {_delete_key: "x, y", ...} drops `x` and `y` from the mapping (after the copy, if any)
// Sources are read from the config as it was before the pass, so a directive never sees another
// directive's result, and a copied block keeps whatever directives it held unexpanded (as upstream).
import { ConfigError } from "./errors.js";
import { mergeInto } from "./merge.js";
import type { Provenance } from "./provenance.js";
import { suggestPath } from "./suggest.js";
import { cloneData, formatPath, isMapping, type ConfigPath, type Mapping } from "./tree.js";

const COPY = "_copy";
const INHERIT = "_inherit_from";
const DELETE = "_delete_key";
const COPY_STRING = /^\$\{copy:([^}]*)\}$/;
const INHERIT_STRING = /^\$\{inherit_from:([^}]*)\}$/;

/** Expands every directive in `config` in place; throws ConfigError naming the directive's key and source. */
export function applyDirectives(config: Mapping, provenance: Provenance): void {
  const frozen = cloneData(config);
  visitMapping(config, [], { root: config, frozen, provenance });
}

interface Pass {
  root: Mapping;
  frozen: Mapping;
  provenance: Provenance;
}

interface Directive {
  kind: "copy" | "inherit";
  source: string[];
  /** The property form merges its sibling keys over the copied value. */
  siblings?: Mapping;
}

function visitMapping(node: Mapping, path: ConfigPath, pass: Pass): void {
  for (const key of Object.keys(node)) {
    const here = [...path, key];
    let value = node[key];
    const pendingDeletes = isMapping(value) ? takeDeletes(value, here, pass) : [];
    if (isMapping(value)) visitMapping(value, here, pass);
    else if (Array.isArray(value)) value.forEach((item, i) => isMapping(item) && visitMapping(item, [...here, String(i)], pass));

    const directive = directiveOf(value, here, pass);
    if (directive) {
      value = expand(directive, here, pass);
      node[key] = value;
    }
    for (const name of pendingDeletes) {
      if (!isMapping(value) || !Object.hasOwn(value, name)) {
        throw directiveError(here, pass, `${DELETE} names "${name}", which ${formatPath(here)} does not have after its copy`);
      }
      delete value[name];
    }
  }
}

/** Removes `_delete_key` and the keys it names that exist now; returns the names left for after a copy. */
function takeDeletes(value: Mapping, path: ConfigPath, pass: Pass): string[] {
  if (!Object.hasOwn(value, DELETE)) return [];
  const spec = value[DELETE];
  delete value[DELETE];
  if (typeof spec !== "string") throw directiveError(path, pass, `${DELETE} must be a comma-separated string of keys, got ${JSON.stringify(spec)}`);
  const left: string[] = [];
  for (const name of new Set(spec.split(",").map((s) => s.trim()))) {
    if (Object.hasOwn(value, name)) delete value[name];
    else left.push(name);
  }
  // Names absent now must appear with the copied value, or the directive is an error (upstream raises).
  return Object.hasOwn(value, COPY) || Object.hasOwn(value, INHERIT) ? left : left.length ? raiseMissing(path, pass, left) : [];
}

function raiseMissing(path: ConfigPath, pass: Pass, names: string[]): never {
  throw directiveError(path, pass, `${DELETE} names ${names.map((n) => `"${n}"`).join(", ")}, which ${formatPath(path)} does not have`);
}

function directiveOf(value: unknown, path: ConfigPath, pass: Pass): Directive | undefined {
  if (typeof value === "string") {
    const copy = COPY_STRING.exec(value);
    if (copy) return { kind: "copy", source: copy[1]!.split(".") };
    const inherit = INHERIT_STRING.exec(value);
    if (inherit) return { kind: "inherit", source: inherit[1]!.split(".") };
    return undefined;
  }
  if (!isMapping(value)) return undefined;
  const hasCopy = Object.hasOwn(value, COPY);
  const hasInherit = Object.hasOwn(value, INHERIT);
  if (!hasCopy && !hasInherit) return undefined;
  if (hasCopy && hasInherit) throw directiveError(path, pass, `has both ${COPY} and ${INHERIT}; keep one`);
  const name = hasCopy ? COPY : INHERIT;
  const { [name]: target, ...siblings } = value;
  if (typeof target !== "string" || target === "") throw directiveError(path, pass, `${name} must be a dotted config path such as policy_model, got ${JSON.stringify(target)}`);
  return { kind: hasCopy ? "copy" : "inherit", source: target.split("."), siblings };
}

function expand(directive: Directive, path: ConfigPath, pass: Pass): unknown {
  const found = lookup(pass.frozen, directive.source);
  if (!found.found) {
    const name = directive.kind === "copy" ? COPY : INHERIT;
    throw directiveError(path, pass, `${name}: ${formatPath(directive.source)} is not in the config${suggestPath(pass.frozen, directive.source)}`);
  }
  if (directive.kind === "inherit") {
    // Taking over: the source no longer runs beside its heir. Several heirs may name one source.
    const parent = lookup(pass.root, directive.source.slice(0, -1));
    if (parent.found && isMapping(parent.value)) delete parent.value[directive.source.at(-1)!];
    pass.provenance.removed(directive.source);
  }
  const source = pass.provenance.sourceOf(path) ?? "the config";
  const value = cloneData(found.value);
  pass.provenance.replaced(path, `${source} (${directive.kind === "copy" ? COPY : INHERIT} ${formatPath(directive.source)})`);
  if (directive.siblings && Object.keys(directive.siblings).length > 0) {
    if (!isMapping(value)) throw directiveError(path, pass, `copies ${formatPath(directive.source)}, which is not a mapping, so its other keys cannot be merged on top`);
    mergeInto(value, directive.siblings, source, pass.provenance, path);
  }
  return value;
}

function lookup(root: Mapping, path: readonly string[]): { found: boolean; value: unknown } {
  let node: unknown = root;
  for (const segment of path) {
    if (!isMapping(node) || !Object.hasOwn(node, segment)) return { found: false, value: undefined };
    node = node[segment];
  }
  return { found: true, value: node };
}

function directiveError(path: ConfigPath, pass: Pass, message: string): ConfigError {
  const source = pass.provenance.sourceOf(path);
  return new ConfigError(`${formatPath(path)}: ${message}${source ? ` (set in ${source})` : ""}`);
}
