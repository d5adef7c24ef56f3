// Where each key of the merged config came from, so an error can say "set in configs/a.yaml" or
// "set by a command-line override" instead of leaving the user to search every file.
//
// Each key is recorded when a source introduces or replaces it; a subtree placed whole by one source
// is recorded only at its root, and a lookup walks up to the nearest recorded ancestor. A mapping that
// several sources merge into keeps the source that created it (where the instance is *defined*), while
// each leaf keeps the source that set it last (where the value that is used was written).
import type { ConfigPath } from "./tree.js";

const SEP = "\u0000";

export class Provenance {
  private readonly sources = new Map<string, string>();

  /** `source` introduced or replaced the value at `path`: forget whatever was recorded below it. */
  replaced(path: ConfigPath, source: string): void {
    this.removed(path);
    this.sources.set(path.join(SEP), source);
  }

  /** The value at `path` was deleted, with everything under it. */
  removed(path: ConfigPath): void {
    const key = path.join(SEP);
    const prefix = key + SEP;
    for (const recorded of [...this.sources.keys()]) {
      if (recorded === key || recorded.startsWith(prefix) || key === "") this.sources.delete(recorded);
    }
  }

  /** The source of the value at `path` (or of its nearest recorded ancestor), if any is known. */
  sourceOf(path: ConfigPath): string | undefined {
    for (let n = path.length; n >= 0; n--) {
      const hit = this.sources.get(path.slice(0, n).join(SEP));
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
}
