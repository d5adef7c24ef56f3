// `${...}` interpolation, OmegaConf style, resolved once over the fully merged config (so a value from
// env.yaml or the command line is what a `${policy_base_url}` in a file sees):
// - `${a.b}` looks up a dotted path from the root (`${.x}` / `${..x}` relative to the containing node,
//   `a[0]` or `a.0` into lists);
// - a string that is exactly one interpolation takes the referenced value with its type (a number
//   stays a number, a mapping stays a mapping); interpolations embedded in text become text;
// - `${oc.env:VAR}` / `${oc.env:VAR,default}` read environment variables (`null` as default gives null);
// - `\${` is a literal `${`.
import { ProblemList } from "./errors.js";
import type { Provenance } from "./provenance.js";
import { suggestPath } from "./suggest.js";
import { formatPath, getAt, isMapping, type ConfigPath, type Mapping } from "./tree.js";

export type Environment = Readonly<Record<string, string | undefined>>;

/** A copy of `config` with every interpolation resolved; throws ConfigError listing every failure. */
export function resolveInterpolations(config: Mapping, provenance: Provenance, env: Environment): Mapping {
  const resolver = new Resolver(config, provenance, env);
  const out = resolver.node(config, []) as Mapping;
  resolver.problems.throwIfAny();
  return out;
}

// Returned in place of a value that failed, so resolution carries on and reports every failure.
const FAILED = Symbol("failed");

type Piece = { text: string } | { expr: string };

class Resolver {
  readonly problems = new ProblemList();
  private readonly done = new Map<string, unknown>();
  private readonly inProgress: string[] = [];

  constructor(
    private readonly root: Mapping,
    private readonly provenance: Provenance,
    private readonly env: Environment,
  ) {}

  node(value: unknown, path: ConfigPath): unknown {
    if (typeof value === "string") return this.string(value, path);
    if (Array.isArray(value)) return value.map((item, i) => this.node(item, [...path, String(i)]));
    if (isMapping(value)) {
      const out: Mapping = {};
      for (const [key, item] of Object.entries(value)) out[key] = this.node(item, [...path, key]);
      return out;
    }
    return value;
  }

  private string(text: string, path: ConfigPath): unknown {
    if (!text.includes("${")) return text;
    const key = path.join("\u0000");
    if (this.done.has(key)) return this.done.get(key);
    if (this.inProgress.includes(key)) {
      const chain = [...this.inProgress.slice(this.inProgress.indexOf(key)), key].map((k) => `\`${k.replaceAll("\u0000", ".")}\``);
      this.problems.add(`Interpolation cycle: ${chain.join(" → ")}${this.from(path)}.`);
      return FAILED;
    }
    this.inProgress.push(key);
    let result: unknown;
    try {
      result = this.evaluate(text, path);
    } finally {
      this.inProgress.pop();
    }
    const value = result === FAILED ? text : result;
    this.done.set(key, value);
    return value;
  }

  private evaluate(text: string, path: ConfigPath): unknown {
    let pieces: Piece[];
    try {
      pieces = split(text);
    } catch (error) {
      this.problems.add(`Field \`${formatPath(path)}\`${this.from(path)} has a malformed interpolation: ${(error as Error).message}.`);
      return FAILED;
    }
    const only = pieces.length === 1 ? pieces[0] : undefined;
    if (only && "expr" in only) return this.expression(only.expr, path);
    let out = "";
    for (const piece of pieces) {
      if ("text" in piece) {
        out += piece.text;
        continue;
      }
      const value = this.expression(piece.expr, path);
      if (value === FAILED) return FAILED;
      if (typeof value === "object" && value !== null) {
        this.problems.add(
          `Field \`${formatPath(path)}\`${this.from(path)} embeds \`\${${piece.expr}}\` in text, but it is a ${Array.isArray(value) ? "list" : "mapping"}; only a whole-value interpolation can take a list or mapping.`,
        );
        return FAILED;
      }
      out += String(value);
    }
    return out;
  }

  private expression(expr: string, path: ConfigPath): unknown {
    const trimmed = expr.trim();
    const resolver = /^([A-Za-z_][\w.]*):(.*)$/s.exec(trimmed);
    if (resolver) return this.callResolver(resolver[1] ?? "", resolver[2] ?? "", path);
    return this.lookup(trimmed, path);
  }

  private callResolver(name: string, args: string, path: ConfigPath): unknown {
    if (name !== "oc.env") {
      this.problems.add(`Field \`${formatPath(path)}\`${this.from(path)} uses the resolver \`${name}\`, which Gymkit does not support; supported: \`oc.env\`.`);
      return FAILED;
    }
    const comma = args.indexOf(",");
    const variable = (comma === -1 ? args : args.slice(0, comma)).trim();
    const value = this.env[variable];
    if (value !== undefined) return value;
    if (comma !== -1) {
      const fallback = args.slice(comma + 1).trim();
      if (fallback === "null") return null;
      const quoted = /^(['"])(.*)\1$/s.exec(fallback);
      // A default may itself interpolate (`${oc.env:URL,${policy_base_url}}`).
      return quoted ? (quoted[2] ?? "") : this.evaluate(fallback, path);
    }
    this.problems.add(
      `Field \`${formatPath(path)}\`${this.from(path)} reads the environment variable \`${variable}\` (\`\${oc.env:${variable}}\`), which is not set. Set it, or give a default: \`\${oc.env:${variable},default}\`.`,
    );
    return FAILED;
  }

  private lookup(reference: string, path: ConfigPath): unknown {
    const target = targetPath(reference, path);
    if (!target) {
      this.problems.add(`Field \`${formatPath(path)}\`${this.from(path)} has an interpolation \`\${${reference}}\` that is not a key path.`);
      return FAILED;
    }
    const hit = getAt(this.root, target);
    if (!hit.found) {
      const name = formatPath(target);
      const hint = target.length === 1 ? ` Set it in a config file, in env.yaml, or on the command line with \`+${name}=...\`.` : "";
      this.problems.add(
        `\`\${${reference}}\` in field \`${formatPath(path)}\`${this.from(path)} refers to \`${name}\`, which is not set.${suggestPath(this.root, target)}${hint}`,
      );
      return FAILED;
    }
    return this.node(hit.value, target);
  }

  private from(path: ConfigPath): string {
    const source = this.provenance.sourceOf(path);
    return source ? ` (from ${source})` : "";
  }
}

/** `a.b[0].c` (absolute) or `..x` (relative to the node holding the string at `path`) → a path. */
function targetPath(reference: string, path: ConfigPath): string[] | undefined {
  const dots = /^\.*/.exec(reference)?.[0].length ?? 0;
  const rest = reference.slice(dots).replace(/\[(\d+)\]/g, ".$1");
  const segments = rest === "" ? [] : rest.split(".");
  if (segments.some((s) => s === "" || /\s/.test(s)) || (dots === 0 && segments.length === 0)) return undefined;
  // One dot is the mapping that holds the string; each further dot climbs one level.
  const base = dots === 0 ? [] : path.slice(0, Math.max(0, path.length - dots));
  return [...base, ...segments];
}

/** Splits text into literal pieces and `${...}` expressions (nested braces allowed inside). */
function split(text: string): Piece[] {
  const pieces: Piece[] = [];
  let literal = "";
  let i = 0;
  while (i < text.length) {
    if (text.startsWith("\\${", i)) {
      literal += "${";
      i += 3;
      continue;
    }
    if (!text.startsWith("${", i)) {
      literal += text[i];
      i++;
      continue;
    }
    let depth = 1;
    let j = i + 2;
    for (; j < text.length && depth > 0; j++) {
      if (text[j] === "{") depth++;
      else if (text[j] === "}") depth--;
    }
    if (depth > 0) throw new Error(`\`${text.slice(i)}\` has no closing \`}\``);
    if (literal) pieces.push({ text: literal });
    literal = "";
    pieces.push({ expr: text.slice(i + 2, j - 1) });
    i = j;
  }
  if (literal || pieces.length === 0) pieces.push({ text: literal });
  return pieces;
}
