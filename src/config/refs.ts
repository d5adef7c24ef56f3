// Checks `{type: <server type>, name: <instance>}` refs inside instance fields: the instance must
// exist and be of that type. A ref whose type is a near-miss of a server type is reported too, since
// it would otherwise pass for an ordinary mapping and fail only when the server starts.
import type { ProblemList } from "./errors.js";
import { fromSource, isServerType, SERVER_TYPES, type InstanceShape } from "./instances.js";
import type { Provenance } from "./provenance.js";
import { didYouMean, listNames, nearest } from "./suggest.js";
import { formatPath, isMapping } from "./tree.js";

/**
 * `allowUndefinedModels`: a ref to a model instance that is not defined is accepted (commands that
 * only verify, such as `gym eval reverify`, start environments without the policy model; a server
 * that then needs the model fails that call, e.g. as `judge_failed`).
 */
export function checkRefs(instances: readonly InstanceShape[], provenance: Provenance, problems: ProblemList, allowUndefinedModels = false): void {
  const typeOf = new Map(instances.map((i) => [i.name, i.type]));
  for (const instance of instances) {
    const base = [instance.name, instance.type, instance.implementation];
    walk(instance.rawFields, [], (ref, fieldPath) => {
      const where = `Instance \`${instance.name}\` field \`${formatPath(fieldPath)}\`${fromSource(provenance, [...base, ...fieldPath])}`;
      const { type, name } = ref;
      if (!isServerType(type)) {
        const hit = nearest(String(type), SERVER_TYPES);
        if (hit) problems.add(`${where} refers to \`${name}\` with type \`${type}\`, which is not a server type. Did you mean \`${hit}\`?`);
        return;
      }
      const sameType = instances.filter((i) => i.type === type).map((i) => i.name);
      const actual = typeOf.get(name);
      if (name === "???") {
        // NeMo Gym's mandatory-value marker (OmegaConf's MISSING): the config leaves the choice to you.
        problems.add(
          `${where} is NeMo Gym's placeholder \`???\`, a value the config leaves to you: set it, e.g. \`++${formatPath([...base, ...fieldPath, "name"])}=<instance>\`. Defined ${type} instances: ${listNames(sameType)}.`,
        );
      } else if (actual === undefined) {
        if (allowUndefinedModels && type === "responses_api_models") return;
        problems.add(
          `${where} refers to ${type} instance \`${name}\`, which is not defined.${didYouMean(name, sameType)} Defined ${type} instances: ${listNames(sameType)}.`,
        );
      } else if (actual !== type) {
        problems.add(
          `${where} refers to \`${name}\` as a ${type} instance, but \`${name}\` is a ${actual} instance. Defined ${type} instances: ${listNames(sameType)}.`,
        );
      }
    });
  }
}

interface RefLike {
  type: unknown;
  name: string;
}

// A ref is any mapping with a string `name` and a `type`; the caller decides whether the type is one.
function walk(value: unknown, path: string[], visit: (ref: RefLike, path: string[]) => void): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, [...path, String(i)], visit));
    return;
  }
  if (!isMapping(value)) return;
  if (typeof value.name === "string" && typeof value.type === "string") {
    visit({ type: value.type, name: value.name }, path);
    return;
  }
  for (const [key, item] of Object.entries(value)) walk(item, [...path, key], visit);
}
