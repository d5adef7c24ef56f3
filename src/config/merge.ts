// Deep merge of config sources, the OmegaConf way: mappings merge key by key, anything else (scalars,
// lists, null) from the later source replaces what was there.
import type { Provenance } from "./provenance.js";
import { cloneData, isMapping, type ConfigPath, type Mapping } from "./tree.js";

/** Merges `layer` into `target` in place, recording in `provenance` which keys `source` set. */
export function mergeInto(
  target: Mapping,
  layer: Mapping,
  source: string,
  provenance: Provenance,
  basePath: ConfigPath = [],
): void {
  for (const [key, value] of Object.entries(layer)) {
    const path = [...basePath, key];
    const existing = target[key];
    if (isMapping(existing) && isMapping(value)) {
      mergeInto(existing, value, source, provenance, path);
    } else {
      target[key] = cloneData(value);
      provenance.replaced(path, source);
    }
  }
}
