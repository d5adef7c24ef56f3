// The shipped benchmark definitions: src/benchmarks/<name>/ holds NeMo Gym's config.yaml (copied from
// NeMo Gym 07d6b0d, with its prompt files under prompts/ as NeMo Gym lays them out) and Gymkit's
// prepare.yaml, the declarative spec of where the rows come from and how they are mapped. A name may be
// nested (`livecodebench/v6_2408_2505`). No data is shipped: `gym eval prepare` makes it.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { BENCHMARKS_ROOT } from "../config/builtin_configs.js";
import { didYouMean } from "../config/suggest.js";
import { UserError } from "../config/user_error.js";
import { TRANSFORMS, type TransformSpec } from "./transforms.js";

export class BenchmarkError extends UserError {}

export type SourceSpec =
  | { kind: "huggingface"; dataset: string; config: string; split: string; gated: boolean }
  | { kind: "huggingface_files"; dataset: string; revision: string; files: string[]; gated: boolean }
  | { kind: "url"; url: string };

export interface PrepareSpec {
  /** The benchmark's name, e.g. `aime25` or `livecodebench/v6_2408_2505`. */
  name: string;
  /** The spec file, for messages. */
  path: string;
  source: SourceSpec;
  /** File name of the prepared JSONL (the basename of the config's `jsonl_fpath`). */
  output: string;
  fields?: Record<string, string>;
  transform?: TransformSpec;
}

const NAME = /^[\w.-]+(?:\/[\w.-]+)*$/;

/** Every shipped benchmark name (folders holding both config.yaml and prepare.yaml), sorted. */
export function benchmarkNames(root = BENCHMARKS_ROOT): string[] {
  const names: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (!statSync(path).isDirectory() || entry === "prompts") continue;
      const name = prefix ? `${prefix}/${entry}` : entry;
      if (existsSync(join(path, "config.yaml")) && existsSync(join(path, "prepare.yaml"))) names.push(name);
      walk(path, name);
    }
  };
  if (existsSync(root)) walk(root, "");
  return names.sort();
}

function checkName(name: string, root: string): void {
  if (!NAME.test(name) || name.split("/").some((part) => part === ".." || part === ".")) {
    throw new BenchmarkError(`--benchmark ${JSON.stringify(name)}: a benchmark name is a folder path such as aime25 or livecodebench/v6_2408_2505`);
  }
  if (!existsSync(join(root, name, "config.yaml"))) {
    const known = benchmarkNames(root);
    throw new BenchmarkError(`--benchmark ${name}: Gymkit ships no such benchmark.${didYouMean(name, known)} Shipped: ${known.join(", ")}.`);
  }
}

/** The shipped config.yaml of a benchmark; throws BenchmarkError with the known names. */
export function benchmarkConfigPath(name: string, root = BENCHMARKS_ROOT): string {
  checkName(name, root);
  return join(root, name, "config.yaml");
}

function str(data: Record<string, unknown>, key: string, where: string): string {
  const value = data[key];
  if (typeof value !== "string" || value === "") throw new BenchmarkError(`${where}: \`${key}\` must be a non-empty string`);
  return value;
}

/** Reads and checks `<name>/prepare.yaml`; every problem names the file and the key. */
export function loadPrepareSpec(name: string, root = BENCHMARKS_ROOT): PrepareSpec {
  checkName(name, root);
  const path = join(root, name, "prepare.yaml");
  if (!existsSync(path)) throw new BenchmarkError(`benchmark ${name} has no preparation spec (${path})`);
  let data: unknown;
  try {
    data = parseYaml(readFileSync(path, "utf8"));
  } catch (error) {
    throw new BenchmarkError(`${path}: not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new BenchmarkError(`${path}: must be a mapping with source, output and fields or transform`);
  const spec = data as Record<string, unknown>;
  const unknown = Object.keys(spec).filter((k) => !["source", "output", "fields", "transform"].includes(k));
  if (unknown.length > 0) throw new BenchmarkError(`${path}: unknown key(s) ${unknown.join(", ")}; a spec has source, output, fields, transform`);
  const source = spec.source as Record<string, unknown> | undefined;
  if (!source || typeof source !== "object") throw new BenchmarkError(`${path}: \`source\` must be one of {huggingface: …}, {huggingface_files: …}, {url: …}`);
  let parsed: SourceSpec;
  if (typeof source.url === "string") parsed = { kind: "url", url: source.url };
  else if (source.huggingface && typeof source.huggingface === "object") {
    const hf = source.huggingface as Record<string, unknown>;
    const where = `${path} source.huggingface`;
    parsed = { kind: "huggingface", dataset: str(hf, "dataset", where), config: typeof hf.config === "string" ? hf.config : "default", split: str(hf, "split", where), gated: hf.gated === true };
  } else if (source.huggingface_files && typeof source.huggingface_files === "object") {
    const hf = source.huggingface_files as Record<string, unknown>;
    const where = `${path} source.huggingface_files`;
    if (!Array.isArray(hf.files) || hf.files.length === 0 || !hf.files.every((f) => typeof f === "string")) throw new BenchmarkError(`${where}: \`files\` must be a list of file paths in the dataset repo`);
    parsed = { kind: "huggingface_files", dataset: str(hf, "dataset", where), revision: typeof hf.revision === "string" ? hf.revision : "main", files: hf.files as string[], gated: hf.gated === true };
  } else throw new BenchmarkError(`${path}: \`source\` must be one of {huggingface: …}, {huggingface_files: …}, {url: …}`);
  const output = str(spec, "output", path);
  let fields: Record<string, string> | undefined;
  if (spec.fields !== undefined) {
    if (!spec.fields || typeof spec.fields !== "object" || Object.values(spec.fields).some((v) => typeof v !== "string")) throw new BenchmarkError(`${path}: \`fields\` must map each output field to a template string like "{problem}"`);
    fields = spec.fields as Record<string, string>;
  }
  let transform: TransformSpec | undefined;
  if (spec.transform !== undefined) {
    const t = typeof spec.transform === "string" ? { name: spec.transform } : (spec.transform as TransformSpec);
    if (!t || typeof t.name !== "string" || !(TRANSFORMS as readonly string[]).includes(t.name)) throw new BenchmarkError(`${path}: \`transform.name\` must be one of ${TRANSFORMS.join(", ")}`);
    transform = t;
  }
  if ((fields === undefined) === (transform === undefined)) throw new BenchmarkError(`${path}: give exactly one of \`fields\` and \`transform\``);
  return { name, path, source: parsed, output, ...(fields ? { fields } : {}), ...(transform ? { transform } : {}) };
}

/**
 * The benchmark a config's dataset entry belongs to, from NeMo Gym's paths: `prepare_script:
 * benchmarks/<name>/prepare.py`, else `jsonl_fpath: benchmarks/<name>/data/<file>`.
 */
export function benchmarkOfDataset(dataset: { prepare_script?: unknown; jsonl_fpath?: unknown }): string | undefined {
  const script = typeof dataset.prepare_script === "string" ? /^(?:\.\/)?benchmarks\/(.+)\/prepare\w*\.py$/.exec(dataset.prepare_script) : null;
  if (script) return script[1];
  const data = typeof dataset.jsonl_fpath === "string" ? /^(?:\.\/)?benchmarks\/(.+)\/data\/[^/]+$/.exec(dataset.jsonl_fpath) : null;
  return data?.[1];
}
