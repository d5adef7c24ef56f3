// The field names a zod schema accepts at a path, for "did you mean" on an unrecognised key. Reads
// zod 4's schema definitions (`_zod.def`) through wrappers (optional, default, pipe, ...), so an
// implementation may write its configSchema with `.default()` or `.transform()` and still get hints.
import type { z } from "zod";

interface Def {
  type?: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  element?: z.ZodType;
  getter?: () => z.ZodType;
}

/** Keys accepted by the object schema found at `path` inside `schema` ([] when none is found). */
export function schemaKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const keys = new Set<string>();
  for (const object of objectsAt(schema, path, 0)) for (const key of Object.keys(object)) keys.add(key);
  return [...keys];
}

// Depth-limited so a recursive (lazy) schema cannot loop.
function objectsAt(schema: z.ZodType | undefined, path: readonly PropertyKey[], depth: number): Array<Record<string, z.ZodType>> {
  if (!schema || depth > 50) return [];
  const def = (schema as unknown as { _zod?: { def?: Def } })._zod?.def;
  if (!def) return [];
  const next = (inner: z.ZodType | undefined, rest = path) => objectsAt(inner, rest, depth + 1);
  switch (def.type) {
    case "object": {
      if (path.length === 0) return def.shape ? [def.shape] : [];
      const [head, ...rest] = path;
      return next(def.shape?.[String(head)], rest);
    }
    case "array":
      return path.length === 0 ? [] : next(def.element, path.slice(1));
    case "union":
      return (def.options ?? []).flatMap((option) => next(option));
    case "intersection":
      return [...next(def.left), ...next(def.right)];
    case "pipe":
      return next(def.in);
    case "lazy":
      return next(def.getter?.());
    default:
      // optional, nullable, default, prefault, catch, readonly, nonoptional all wrap `innerType`.
      return next(def.innerType);
  }
}
