// Preparing a benchmark's rows once into a cache directory: read the source its spec names (a Hugging
// Face dataset through the datasets-server rows API, raw files of a Hugging Face dataset repo, or a raw
// file URL; or, offline, a local JSONL file or a mirror URL serving the same rows), map each row, and
// write `<cache>/<name>/<output>` atomically. Matches the output of NeMo Gym 07d6b0d's
// benchmarks/<name>/prepare.py (field for field), without Python.
//
// Where things are asked:
//   HF_ENDPOINT            the hub (raw files: <hub>/datasets/<repo>/resolve/<revision>/<file>), default https://huggingface.co
//   HF_DATASETS_SERVER_URL the datasets server (<server>/rows?dataset=…), default https://datasets-server.huggingface.co
//   HF_TOKEN (or HUGGING_FACE_HUB_TOKEN, or the config key hf_token) for gated datasets such as gpqa.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { benchmarkBuiltinPath } from "../config/builtin_configs.js";
import { redactUrl } from "../config/url_secrets.js";
import { BenchmarkError, benchmarkOfDataset, loadPrepareSpec, type PrepareSpec, type SourceSpec } from "./definitions.js";
import { fieldsTransform, namedTransform, type Row } from "./transforms.js";

export const CACHE_ENV = "GYM_BENCHMARK_CACHE";
const ROWS_PAGE = 100;

/** `--benchmark-cache`, else $GYM_BENCHMARK_CACHE, else `$XDG_CACHE_HOME/gymkit/benchmarks` (~/.cache by default). */
export function benchmarkCacheDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag);
  if (env[CACHE_ENV]) return resolve(env[CACHE_ENV]);
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "gymkit", "benchmarks");
}

/** Where a benchmark's prepared rows live in the cache. */
export function preparedPath(cacheDir: string, spec: PrepareSpec): string {
  return join(cacheDir, spec.name, spec.output);
}

export interface PrepareOptions {
  cacheDir: string;
  /** Offline: a JSONL file of the source's rows instead of the source. */
  fromFile?: string;
  /** A mirror serving the same JSONL rows. */
  fromUrl?: string;
  /** For gated datasets; default $HF_TOKEN / $HUGGING_FACE_HUB_TOKEN. */
  hfToken?: string;
  env?: NodeJS.ProcessEnv;
}

export interface Prepared {
  name: string;
  path: string;
  rows: number;
  /** Where the rows came from, for the message (URLs without credentials). */
  from: string;
}

function tokenOf(options: PrepareOptions): string | undefined {
  const env = options.env ?? process.env;
  return options.hfToken || env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN || undefined;
}

async function get(url: string, token: string | undefined, what: string, gated: { dataset: string; hub: string } | undefined): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, redirect: "follow" });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new BenchmarkError(`${what}: cannot reach ${redactUrl(url)} (${cause}); offline, prepare from a local copy with --from-file FILE (JSONL of the source's rows) or a mirror with --from-url URL`);
  }
  if ((response.status === 401 || response.status === 403) && gated) {
    throw new BenchmarkError(
      `${what}: ${gated.dataset} is a gated dataset (HTTP ${response.status}${token ? " with the token given" : ", and no token was given"}): accept its terms at ${gated.hub}/datasets/${gated.dataset} and set HF_TOKEN (or the config key hf_token) to a token of that account`,
    );
  }
  if (!response.ok) {
    const body = (await response.text().catch(() => "")).slice(0, 200);
    throw new BenchmarkError(`${what}: ${redactUrl(url)} answered HTTP ${response.status}${body ? `: ${body}` : ""}`);
  }
  return response;
}

function parseJsonlText(text: string, where: string): Row[] {
  const rows: Row[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new BenchmarkError(`${where}:${i + 1}: not valid JSON (${(error as Error).message})`);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new BenchmarkError(`${where}:${i + 1}: expected a JSON object per line`);
    rows.push(value as Row);
  });
  return rows;
}

async function readSource(source: SourceSpec, options: PrepareOptions, what: string): Promise<{ rows: Row[]; from: string }> {
  const env = options.env ?? process.env;
  if (options.fromFile !== undefined) {
    const path = resolve(options.fromFile);
    if (!existsSync(path)) throw new BenchmarkError(`${what}: --from-file ${path}: no such file`);
    return { rows: parseJsonlText(readFileSync(path, "utf8"), path), from: path };
  }
  const token = tokenOf(options);
  if (options.fromUrl !== undefined) {
    const response = await get(options.fromUrl, token, what, undefined);
    return { rows: parseJsonlText(await response.text(), redactUrl(options.fromUrl)), from: redactUrl(options.fromUrl) };
  }
  const hub = (env.HF_ENDPOINT || "https://huggingface.co").replace(/\/+$/, "");
  switch (source.kind) {
    case "url": {
      const response = await get(source.url, undefined, what, undefined);
      return { rows: parseJsonlText(await response.text(), source.url), from: source.url };
    }
    case "huggingface_files": {
      const rows: Row[] = [];
      const gated = source.gated ? { dataset: source.dataset, hub } : undefined;
      for (const file of source.files) {
        const url = `${hub}/datasets/${source.dataset}/resolve/${encodeURIComponent(source.revision)}/${file}`;
        const response = await get(url, token, what, gated);
        rows.push(...parseJsonlText(await response.text(), `${source.dataset}/${file}`));
      }
      return { rows, from: `${hub}/datasets/${source.dataset} (${source.files.join(", ")})` };
    }
    case "huggingface": {
      const server = (env.HF_DATASETS_SERVER_URL || "https://datasets-server.huggingface.co").replace(/\/+$/, "");
      const gated = source.gated ? { dataset: source.dataset, hub } : undefined;
      const rows: Row[] = [];
      for (let offset = 0; ; ) {
        const query = new URLSearchParams({ dataset: source.dataset, config: source.config, split: source.split, offset: String(offset), length: String(ROWS_PAGE) });
        const response = await get(`${server}/rows?${query}`, token, what, gated);
        const page = (await response.json()) as { rows?: Array<{ row?: Row; truncated_cells?: string[] }>; num_rows_total?: number };
        if (!Array.isArray(page.rows)) throw new BenchmarkError(`${what}: ${server}/rows answered without a \`rows\` list`);
        for (const entry of page.rows) {
          if (entry.truncated_cells && entry.truncated_cells.length > 0) throw new BenchmarkError(`${what}: the datasets server truncated cells ${entry.truncated_cells.join(", ")}; prepare from a full copy with --from-file`);
          rows.push(entry.row ?? {});
        }
        offset += page.rows.length;
        if (page.rows.length === 0 || typeof page.num_rows_total !== "number" || offset >= page.num_rows_total) break;
      }
      return { rows, from: `${server} (${source.dataset}, ${source.config}/${source.split})` };
    }
  }
}

/** Prepares one benchmark into the cache; throws BenchmarkError naming the benchmark, the source and the row. */
export async function prepareBenchmark(name: string, options: PrepareOptions): Promise<Prepared> {
  const spec = loadPrepareSpec(name);
  const what = `benchmark ${name}`;
  const { rows, from } = await readSource(spec.source, options, what);
  const transform = spec.fields ? fieldsTransform(spec.fields) : namedTransform(spec.transform!);
  const out: string[] = [];
  rows.forEach((row, i) => {
    let mapped: Row | undefined;
    try {
      mapped = transform(row, i);
    } catch (error) {
      throw new BenchmarkError(`${what}: source row ${i + 1} (of ${from}): ${(error as Error).message}`);
    }
    if (mapped !== undefined) out.push(`${JSON.stringify(mapped)}\n`);
  });
  if (out.length === 0) throw new BenchmarkError(`${what}: ${from} gave no rows${rows.length > 0 ? ` (all ${rows.length} were filtered out)` : ""}`);
  const path = preparedPath(options.cacheDir, spec);
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  writeFileSync(partial, out.join(""));
  renameSync(partial, path);
  return { name, path, rows: out.length, from };
}

export interface DatasetEntry {
  name?: unknown;
  type?: unknown;
  jsonl_fpath?: unknown;
  prompt_config?: unknown;
  prepare_script?: unknown;
  num_repeats?: unknown;
}

/**
 * Where a config's dataset paths point, for a run: a path that exists (relative to `cwd`) as given;
 * a NeMo Gym `benchmarks/<name>/data/<file>` path that does not, to the prepared file in the cache;
 * a NeMo Gym `benchmarks/…/<prompt>.yaml` that does not, to the shipped copy.
 */
export function benchmarkPathLocator(cacheDir: string, cwd: string): (path: string, kind: "jsonl" | "prompt") => string {
  return (path, kind) => {
    const given = resolve(cwd, path);
    if (existsSync(given)) return given;
    if (kind === "prompt") {
      const shipped = benchmarkBuiltinPath(path);
      return shipped !== undefined && existsSync(shipped) ? shipped : given;
    }
    const name = benchmarkOfDataset({ jsonl_fpath: path });
    const file = /[^/]+$/.exec(path)?.[0];
    return name !== undefined && file !== undefined ? join(cacheDir, name, file) : given;
  };
}

/** The benchmark datasets of `datasets` (one agent's list) that have no data yet and a shipped spec. */
export function unpreparedBenchmarks(datasets: readonly DatasetEntry[], locate: (path: string, kind: "jsonl") => string): string[] {
  const names: string[] = [];
  for (const dataset of datasets) {
    if (dataset.type !== "benchmark" || typeof dataset.jsonl_fpath !== "string") continue;
    if (existsSync(locate(dataset.jsonl_fpath, "jsonl"))) continue;
    const name = benchmarkOfDataset(dataset);
    if (name === undefined) continue;
    try {
      loadPrepareSpec(name);
    } catch {
      continue;
    }
    if (!names.includes(name)) names.push(name);
  }
  return names;
}
