// One environment's audit: its rows × the probe battery, each (probe, row) one rollout through the
// environment's real server and agent with the scripted_model as the policy (and as the judge of a
// judged environment), collected by the same path `gym eval run` takes (startServers + collect, all
// in this process); then each probe's cell: mean reward, rows rewarded, its floor, a verdict.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve as resolvePath } from "node:path";
import initSqlJs from "sql.js";
import { collect } from "../collect/collect.js";
import { nearest } from "../config/suggest.js";
import { siblingPaths } from "../collect/paths.js";
import type { ServerRef } from "../protocol/index.js";
import { startServers, type InstanceSpec } from "../orchestrate/start.js";
import { agentUrlsOf } from "../orchestrate/status.js";
import { PACKAGE_ROOT } from "../orchestrate/registry.js";
import type { ScriptLine, ScriptTurn } from "../models/scripted_model.js";
import { loadDeclaration, type AuditDeclaration } from "./floors.js";
import { PROBES, type Option, type Probe, type ProbeContext, type ToolInfo } from "./probes.js";

/** Resolves the target's config with the scripted_model as the policy, reading its script from `scriptPath` (the CLI's config resolution). */
export type ResolveForAudit = (target: AuditTarget, scriptPath: string, extraOverrides?: readonly string[]) => Promise<{ instances: InstanceSpec[]; config: Record<string, unknown>; redacted: Record<string, unknown> }>;

export interface AuditTarget {
  /** A built-in environment id (`--resources-server`), or the label of a config's environment. */
  id: string;
  /** Config files (for `--config`); empty for a built-in id. */
  configPaths?: string[];
  /** The audit.yaml; default: the built-in environment's folder, or beside the config's entrypoint. */
  declarationPath?: string;
}

export interface AuditOptions {
  /** Rows per environment (the first N of its input). */
  rows: number;
  /** Rows from this JSONL instead of the agents' example datasets. */
  input?: string;
  probes?: readonly Probe[];
  concurrency?: number;
  /** Keep the run's files here (default: a temporary folder, removed afterwards). */
  workDir?: string;
  onNotice?: (message: string) => void;
  resolve: ResolveForAudit;
}

export type Verdict = "pass" | "FAIL" | "n/a" | "control" | "error";

export interface Cell {
  probe: string;
  family: string;
  /** Rows the probe ran on (applicable ones). */
  ran: number;
  meanReward: number;
  /** Input rows (0-based, within the audited rows) rewarded above their chance level. */
  rewardedRows: number[];
  /** Rollouts that failed (no reward): any makes the cell an error, since the probe was not measured. */
  failed: number;
  /** Rollouts the environment refused by design (audit.yaml `rejects`); counted as 0. */
  rejected?: number;
  firstFailure?: string;
  /** Mean chance level over the rows (a lucky guess a sound verifier still rewards). */
  chance: number;
  /** The declared floor above chance (0 unless audit.yaml says otherwise), for the rows without a row floor. */
  floor: number;
  floorReason?: string;
  /** Rows checked against their own floor (audit.yaml `row_floors`) instead of the probe's. */
  rowFloorRows?: number;
  /** Rows rewarded above their own floor: any fails the probe. */
  aboveRowFloor?: number[];
  verdict: Verdict;
  /** Why n/a. */
  why?: string;
}

export interface EnvAudit {
  env: string;
  rows: number;
  judged: boolean;
  cells: Cell[];
  /** Set when the environment could not be audited at all. */
  error?: string;
  notes?: string;
}

/** Every probe that could not be measured (rollouts failed), as one line each: env, probe, the first failure. */
export function errorsOf(audit: EnvAudit): string[] {
  return audit.cells.filter((c) => c.verdict === "error").map((c) => `${audit.env}: ${c.probe} not measured: ${c.failed} of ${c.ran} rollout(s) failed (${(c.firstFailure ?? "no result").slice(0, 300)})`);
}

/** Every probe that is rewarded above its floor, as one line each: env, probe, rows. */
export function failuresOf(audit: EnvAudit): string[] {
  return audit.cells.filter((c) => c.verdict === "FAIL").map((c) => `${audit.env}: ${c.probe} rewarded ${c.meanReward.toFixed(3)} (floor ${(c.chance + c.floor).toFixed(3)}${c.rowFloorRows ? `, ${c.rowFloorRows} row(s) with their own` : ""}) on row(s) ${c.rewardedRows.join(", ")}${c.aboveRowFloor ? `; above their own row floor: row(s) ${c.aboveRowFloor.join(", ")}` : ""}`);
}

const GOLD_FIELDS = ["expected_answer", "answer", "target", "expected_result", "expected_output", "ground_truth", "gold", "label", "solution"];

function at(row: unknown, path: string): unknown {
  let value: unknown = row;
  for (const key of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof (p as { text?: unknown })?.text === "string" ? (p as { text: string }).text : "")).join("");
  return "";
}

function promptOf(row: Record<string, unknown>): string {
  const input = (row.responses_create_params as { input?: unknown } | undefined)?.input;
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i] as { role?: string; content?: unknown };
    if (item?.role === "user") return textOf(item.content);
  }
  return "";
}

/** A gold written whole as one `\boxed{…}` (e.g. physics rows): its content, since the probes box the value themselves. */
function unboxed(gold: string): string {
  const m = /^\s*\\boxed\{(.*)\}\s*$/s.exec(gold);
  if (!m) return gold;
  let depth = 0;
  for (const ch of m[1]!) {
    if (ch === "{") depth++;
    else if (ch === "}" && --depth < 0) return gold; // "\boxed{a}, \boxed{b}": not one box
  }
  return depth === 0 ? m[1]! : gold;
}

/** `["a", "b"]` → `a, b` with audit.yaml's `gold_join` (an empty list → ""); any other gold unchanged. */
function joined(gold: string, separator: string | undefined): string {
  if (separator === undefined) return gold;
  let parsed: unknown;
  try {
    parsed = JSON.parse(gold);
  } catch {
    return gold;
  }
  return Array.isArray(parsed) && parsed.every((item) => typeof item === "string" || typeof item === "number") ? parsed.join(separator) : gold;
}

/** The gold's items as JSON texts (a JSON list's elements; any other gold is one item). */
function goldItems(gold: string): string[] {
  try {
    const parsed: unknown = JSON.parse(gold);
    if (Array.isArray(parsed)) return parsed.map((item) => JSON.stringify(item));
  } catch {
    // not JSON: the gold itself, as a JSON string
  }
  return [JSON.stringify(gold)];
}

function rawGoldOf(row: Record<string, unknown>, decl: AuditDeclaration): string | undefined {
  const paths = decl.gold ? [decl.gold] : [...GOLD_FIELDS, ...GOLD_FIELDS.map((f) => `verifier_metadata.${f}`)];
  for (const path of paths) {
    const value = at(row, path);
    if (typeof value === "string" && value.trim() !== "") return unboxed(value);
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    if (decl.gold && value !== undefined && value !== null) return JSON.stringify(value);
  }
  return undefined;
}

function optionsOf(row: Record<string, unknown>, decl: AuditDeclaration): Option[] | undefined {
  const value = at(row, decl.options ?? "options");
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const options: Option[] = [];
  for (const item of value) {
    if (typeof item === "string") options.push({ letter: item, text: item });
    else if (item && typeof item === "object") for (const [letter, text] of Object.entries(item)) options.push({ letter, text: String(text) });
  }
  return options.length ? options : undefined;
}

function toolsOf(row: Record<string, unknown>): ToolInfo[] {
  const tools = (row.responses_create_params as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools
    .filter((t): t is { type: string; name: string; parameters?: Record<string, unknown> } => t?.type === "function" && typeof t.name === "string")
    .map((t) => ({ name: t.name, parameters: t.parameters ?? {} }));
}

function schemaOf(row: Record<string, unknown>): Record<string, unknown> | undefined {
  if (typeof row.schema_str === "string") {
    try {
      const parsed = JSON.parse(row.schema_str) as unknown;
      if (parsed && typeof parsed === "object") return parsed as Record<string, unknown>;
    } catch {
      // a schema in another language (YAML, XML): no JSON shape to copy
    }
  }
  const format = (row.responses_create_params as { text?: { format?: { schema?: unknown } } } | undefined)?.text?.format?.schema;
  return format && typeof format === "object" ? (format as Record<string, unknown>) : undefined;
}

/** `sideGold`: the gold audit.yaml's `gold_from` finds for the row in a side file (used when the row has none). */
/** The control's calls (one per gold item), and the same call with any value for guess.tool_values. */
function controlOf(call: { name: string; arguments: string }, items: string[]): Pick<ProbeContext, "controlCalls" | "controlItems" | "controlCallWith"> {
  const controlCallWith = (item: string) => ({ name: call.name, arguments: call.arguments.replaceAll("{item}", item) });
  return { controlCalls: items.map(controlCallWith), controlItems: items, controlCallWith };
}

export function contextOf(row: Record<string, unknown>, decl: AuditDeclaration, sideGold?: string): ProbeContext {
  const raw = rawGoldOf(row, decl) ?? sideGold;
  const call = decl.control_call;
  return {
    row,
    prompt: promptOf(row),
    gold: raw === undefined ? undefined : joined(raw, decl.gold_join),
    ...(call && raw !== undefined ? controlOf(call, goldItems(raw)) : {}),
    options: optionsOf(row, decl),
    tools: toolsOf(row),
    schema: schemaOf(row),
    answer: (value) => decl.answer.replaceAll("{answer}", value),
    verifierFiles: decl.verifier_files,
    ...(decl.judge ? { judgeAccept: verdictFor(decl, "accept", row, "audit.yaml") } : {}),
  };
}

/** The judge's accept or reject text for this row (a per-row map is keyed by the value at `judge.by`). */
function verdictFor(decl: AuditDeclaration, side: "accept" | "reject", row: Record<string, unknown>, declPath: string): string {
  const judge = decl.judge!;
  const given = judge[side];
  if (typeof given === "string") return given;
  const value = at(row, judge.by!);
  const key = typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value ?? null);
  const text = given[key];
  if (text === undefined) throw new Error(`${declPath}: judge.${side} has no entry for ${key} (the row's ${judge.by}); entries: ${Object.keys(given).join(", ")}`);
  return text;
}

/** What the scripted judge says: the control is accepted; anything else is quoted, then rejected. */
function judgeReply(probe: Probe, turns: ScriptTurn[], decl: AuditDeclaration, row: Record<string, unknown>, declPath: string): string {
  if (!decl.judge) return "";
  if (probe.family === "control") return verdictFor(decl, "accept", row, declPath);
  if (!decl.judge.quote) return verdictFor(decl, "reject", row, declPath);
  const last = [...turns].reverse().find((t): t is { text: string } => "text" in t);
  const quoted = (last?.text ?? "").slice(0, 1500);
  // A judge that quotes the answer before its verdict: a verdict parser that takes the first label
  // it sees would read whatever verdict the answer planted.
  return `The response under review reads:\n"""\n${quoted}\n"""\nIt does not answer the question correctly.\n\n${verdictFor(decl, "reject", row, declPath)}`;
}

/** `{here}` and `{work}` in every string of a config value. */
function substitute(value: unknown, places: { here: string; work: string }): unknown {
  if (typeof value === "string") return value.replaceAll("{here}", places.here).replaceAll("{work}", places.work);
  if (Array.isArray(value)) return value.map((v) => substitute(v, places));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, places)]));
  return value;
}

/** audit.yaml `config`: the environment's fields overridden; a field it does not have is an error naming it. */
export function applyConfig(env: InstanceSpec, overrides: Record<string, unknown>, places: { here: string; work: string }, declPath: string): void {
  const fields = Object.keys(env.fields);
  for (const key of Object.keys(overrides)) {
    if (!fields.includes(key)) {
      const near = nearest(key, fields);
      throw new Error(`${declPath}: config.${key}: ${env.implementation} has no config field ${key}${near ? ` (did you mean config.${near}?)` : ""}; its fields: ${fields.join(", ")}`);
    }
  }
  env.fields = { ...env.fields, ...(substitute(overrides, places) as Record<string, unknown>) };
}

/** audit.yaml `gold_from`: each row's gold from the side file's matching line, written by the template. */
export function goldFromFile(spec: NonNullable<AuditDeclaration["gold_from"]>, here: string, declPath: string): (row: Record<string, unknown>) => string | undefined {
  const file = resolvePath(here, spec.file);
  if (!existsSync(file)) throw new Error(`${declPath}: gold_from.file: no file ${file}`);
  const lines = new Map<string, Record<string, unknown>>();
  readJsonl(file).forEach((line) => {
    const key = at(line, spec.file_key);
    if (key !== undefined && key !== null) lines.set(String(key), line);
  });
  return (row) => {
    const key = at(row, spec.row_key);
    const line = key === undefined || key === null ? undefined : lines.get(String(key));
    if (line === undefined) return undefined;
    const gold = spec.template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const value = line[name];
      if (value === undefined) throw new Error(`${declPath}: gold_from.template: ${file} has no field ${name} (its fields: ${Object.keys(line).join(", ")})`);
      return typeof value === "string" ? value : JSON.stringify(value);
    });
    // A stand-in task without a solution (an empty template) gives no gold: its control is not applicable.
    return gold.trim() === "" ? undefined : gold;
  };
}

/** audit.yaml `sqlite`: each database written under the work folder from its SQL script. */
async function buildSqlite(specs: AuditDeclaration["sqlite"], here: string, work: string, firstRow: Record<string, unknown>, declPath: string): Promise<void> {
  const entries = Object.entries(specs);
  if (entries.length === 0) return;
  const SQL = await initSqlJs();
  for (const [path, spec] of entries) {
    let script: string;
    if (spec.sql !== undefined) {
      const file = resolvePath(here, spec.sql);
      if (!existsSync(file)) throw new Error(`${declPath}: sqlite.${path}.sql: no file ${file}`);
      script = readFileSync(file, "utf8");
    } else {
      const value = at(firstRow, spec.row_field!);
      if (typeof value !== "string") throw new Error(`${declPath}: sqlite.${path}.row_field: the first audited row has no text at ${spec.row_field}`);
      script = value
        .split("\n")
        .filter((line) => line.trim() !== "...")
        .join("\n");
    }
    const db = new SQL.Database();
    try {
      db.exec(script);
      const target = resolvePath(work, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, db.export());
    } catch (error) {
      throw new Error(`${declPath}: sqlite.${path}: the script failed: ${(error as Error).message}`, { cause: error });
    } finally {
      db.close();
    }
  }
}

function readJsonl(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The built-in environment's audit.yaml, or the one beside a custom environment's entrypoint. */
function declarationPathOf(target: AuditTarget, entrypoint: string | undefined): string | undefined {
  if (target.declarationPath) return target.declarationPath;
  const builtin = join(PACKAGE_ROOT, "src", "environments", target.id, "audit.yaml");
  if (existsSync(builtin) || (!target.configPaths?.length && existsSync(dirname(builtin)))) return builtin;
  return entrypoint ? join(dirname(entrypoint), "audit.yaml") : undefined;
}

/** The highest per-row floor (audit.yaml `row_floors`) that covers this row on this probe, with its reason. */
function rowFloorOf(decl: AuditDeclaration, probe: Probe, row: Record<string, unknown>): { floor: number; reason: string } | undefined {
  if (!decl.row_floors || probe.family === "control") return undefined;
  const value = at(row, decl.row_floors.by);
  if (value === undefined || value === null) return undefined;
  const key = typeof value === "string" ? value : JSON.stringify(value);
  let best: { floor: number; reason: string } | undefined;
  for (const group of decl.row_floors.groups) {
    if (!group.rows.includes(key) || (group.probes && !group.probes.includes(probe.name))) continue;
    if (!best || group.floor > best.floor) best = { floor: group.floor, reason: group.reason };
  }
  return best;
}

export async function auditEnvironment(target: AuditTarget, options: AuditOptions): Promise<EnvAudit> {
  const probes = options.probes ?? PROBES;
  const work = options.workDir ?? mkdtempSync(join(tmpdir(), "gym-audit-"));
  const scriptPath = join(work, `${target.id}_script.jsonl`);
  try {
    // audit.yaml `models` (built-in environments): model instances the config leaves to the user, defined as the scripted_model.
    const builtinDecl = target.configPaths?.length ? undefined : loadDeclaration(declarationPathOf(target, undefined));
    const resolved = await options.resolve(target, scriptPath, (builtinDecl?.models ?? []).map((m) => `++${m}.responses_api_models.scripted_model.script_path=${scriptPath}`));
    // Every model of the config (the policy, a judge, a user simulator) answers from the script.
    const instances = resolved.instances.map((i) => (i.type === "responses_api_models" ? { ...i, implementation: "scripted_model", fields: { script_path: scriptPath }, entrypoint: undefined } : i));
    const envs = instances.filter((i) => i.type === "resources_servers");
    const env = envs.find((i) => i.name === target.id) ?? envs.find((i) => i.implementation === target.id) ?? envs[0];
    if (!env) throw new Error(`the config defines no environment (resources_servers) to audit`);
    const declPath = declarationPathOf(target, env.entrypoint);
    const decl = loadDeclaration(declPath);
    const agents = instances.filter((i) => i.type === "responses_api_agents" && (i.fields.resources_server as ServerRef | undefined)?.name === env.name);
    if (agents.length === 0) throw new Error(`no agent drives the environment ${env.name}`);
    // A judged environment names its judge (judge_model_server, a GenRM model); the scripted judge
    // must answer in its verdict format, or its judge probes (and most others) would test nothing.
    const judgeField = Object.keys(env.fields).find((k) => k.startsWith("judge_model_server") || k === "genrm_model_server");
    const judged = decl.judge !== undefined || judgeField !== undefined;
    if (judgeField !== undefined && decl.judge === undefined) {
      throw new Error(
        `${target.id} is judged (its config sets ${judgeField}) but ${declPath ?? "its audit.yaml"} has no \`judge\` key: ` +
          `add judge: {accept: "<the judge's passing verdict>", reject: "<its failing verdict>"} in the environment's verdict format, ` +
          "so the scripted judge answers as its judge would (an empty reply tests nothing)",
      );
    }

    // The rows: --input, else each agent's example dataset; the first N.
    const rows: Array<Record<string, unknown>> = [];
    const ownRows = options.input ? resolvePath(options.input) : decl.rows && declPath ? resolvePath(dirname(declPath), decl.rows) : undefined;
    if (ownRows !== undefined && !existsSync(ownRows)) throw new Error(`${options.input ? "--input" : `${declPath}: rows`}: no file ${ownRows}`);
    const sources = ownRows
      ? [{ path: ownRows, agent: agents[0]!.name }]
      : agents.flatMap((a) => {
          const block = (resolved.config[a.name] as Record<string, Record<string, Record<string, unknown>>> | undefined)?.responses_api_agents?.[a.implementation];
          const datasets = (block?.datasets ?? a.fields.datasets ?? []) as Array<{ type?: string; jsonl_fpath?: string }>;
          return datasets.filter((d) => d.type === "example" && d.jsonl_fpath).map((d) => ({ path: existsSync(resolvePath(d.jsonl_fpath!)) ? resolvePath(d.jsonl_fpath!) : resolvePath(PACKAGE_ROOT, d.jsonl_fpath!), agent: a.name }));
        });
    if (sources.length === 0) throw new Error(`no rows: the agents of ${env.name} name no example dataset; give --input FILE`);
    const agentNames = new Set(agents.map((a) => a.name));
    // audit.yaml `row_indices` (without --input): only those rows of the input, in that order.
    const picked = options.input ? undefined : decl.row_indices;
    let index = 0;
    const chosen: Array<Record<string, unknown>> = [];
    for (const source of sources) {
      for (const row of readJsonl(source.path)) {
        const position = index++;
        if (picked ? !picked.includes(position) : rows.length >= options.rows) continue;
        const named = (row.agent_ref as { name?: string } | undefined)?.name;
        const agent = named !== undefined && agentNames.has(named) ? named : source.agent;
        const { _ng_task_index: _t, _ng_rollout_index: _r, ...rest } = row;
        void _t;
        void _r;
        (picked ? chosen : rows).push({ ...rest, agent_ref: { type: "responses_api_agents", name: agent }, ...(picked ? { _position: position } : {}) });
      }
    }
    if (picked) {
      for (const i of picked) {
        const found = chosen.find((r) => r._position === i);
        if (found === undefined) throw new Error(`${declPath ?? "audit.yaml"}: row_indices: no row ${i} (the input has ${index} rows)`);
        const { _position: _p, ...row } = found;
        void _p;
        if (rows.length < options.rows) rows.push(row);
      }
    }
    if (rows.length === 0) throw new Error(`no rows in ${sources.map((s) => s.path).join(", ")}`);
    const here = declPath ? dirname(resolvePath(declPath)) : PACKAGE_ROOT;
    const sideGold = decl.gold_from ? goldFromFile(decl.gold_from, here, declPath ?? "audit.yaml") : undefined;
    await buildSqlite(decl.sqlite, here, work, rows[0]!, declPath ?? "audit.yaml");
    applyConfig(env, decl.config, { here, work }, declPath ?? "audit.yaml");

    // One rollout per (probe, row), task index = probe × rows + row.
    const script: ScriptLine[] = [];
    const input: string[] = [];
    const cells: Cell[] = [];
    const planned: Array<{ probe: Probe; applicable: Array<{ row: number; task: number; chance: number; cap?: { floor: number; reason: string } }>; why?: string }> = [];
    probes.forEach((probe, p) => {
      const declared = decl.floors[probe.name];
      if (declared && "not_applicable" in declared) {
        planned.push({ probe, applicable: [], why: declared.not_applicable });
        return;
      }
      const entry: (typeof planned)[number] = { probe, applicable: [] };
      rows.forEach((row, r) => {
        const context = contextOf(row, decl, sideGold?.(row));
        const built = probe.build(context);
        if (!Array.isArray(built)) {
          entry.why ??= built.notApplicable;
          return;
        }
        const task = p * rows.length + r;
        script.push({ task_index: task, turns: built, ...(judged ? { judge: judgeReply(probe, built, decl, row, declPath ?? "audit.yaml") } : {}) });
        input.push(JSON.stringify({ ...row, _ng_task_index: task }));
        const cap = rowFloorOf(decl, probe, row);
        entry.applicable.push({ row: r, task, chance: probe.chance?.(context) ?? 0, ...(cap ? { cap } : {}) });
      });
      planned.push(entry);
    });
    writeFileSync(scriptPath, script.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const inputPath = join(work, `${target.id}_input.jsonl`);
    const outputPath = join(work, `${target.id}_rollouts.jsonl`);
    writeFileSync(inputPath, input.join("\n") + "\n");

    const servers = await startServers(instances, { headPort: 0, globalConfig: resolved.redacted });
    try {
      await collect({
        inputPath,
        outputPath,
        agentUrls: agentUrlsOf(servers.instances),
        // A cohort's rollouts must be in flight together (each /verify waits for its whole cohort).
        concurrency: Math.max(options.concurrency ?? 4, decl.cohort ?? 1),
        repeats: decl.cohort ?? 1,
        maxAttempts: 1,
        rolloutTimeoutMs: 300_000,
        overwrite: true,
        disableAggregation: true,
        onNotice: options.onNotice,
      });
    } finally {
      await servers.stop();
    }

    // Per task: the mean over its rollouts (a cohort's), mapped to 0-1 by audit.yaml `reward_range`.
    const range = decl.reward_range;
    const scaled = (r: number) => (range ? (r - range.min) / (range.max - range.min) : r);
    const sums = new Map<number, { sum: number; n: number }>();
    for (const line of readJsonl(outputPath)) {
      if (typeof line._ng_task_index !== "number") continue;
      const entry = sums.get(line._ng_task_index) ?? { sum: 0, n: 0 };
      entry.sum += scaled(typeof line.reward === "number" ? line.reward : 0);
      entry.n++;
      sums.set(line._ng_task_index, entry);
    }
    const rewards = new Map<number, number>();
    for (const [task, { sum, n }] of sums) rewards.set(task, sum / n);
    const failures = new Map<number, string>();
    for (const line of readJsonl(siblingPaths(outputPath).failures)) {
      if (typeof line._ng_task_index === "number") failures.set(line._ng_task_index, `${String(line._ng_failure_class ?? "failed")}: ${String(line._ng_failure_error ?? "").slice(0, 300)}`);
    }

    for (const { probe, applicable, why } of planned) {
      const declared = decl.floors[probe.name] ?? decl.default_floor;
      const floor = declared && "floor" in declared ? declared.floor : 0;
      const floorReason = declared && "floor" in declared ? declared.reason : undefined;
      if (applicable.length === 0) {
        cells.push({ probe: probe.name, family: probe.family, ran: 0, meanReward: 0, rewardedRows: [], failed: 0, chance: 0, floor, floorReason, verdict: "n/a", why: why ?? "not applicable" });
        continue;
      }
      let sum = 0;
      let chance = 0;
      // Rows under a row floor are checked one by one; the mean check is over the others.
      let plainSum = 0;
      let plainChance = 0;
      let plainRows = 0;
      const aboveCap: number[] = [];
      const reasons = new Set<string>();
      let failed = 0;
      let rejected = 0;
      let firstFailure: string | undefined;
      const rewardedRows: number[] = [];
      for (const item of applicable) {
        // A failed rollout leaves its task unmeasured, even when others of its cohort came back.
        const reward = failures.has(item.task) ? undefined : rewards.get(item.task);
        if (reward === undefined) {
          const failure = failures.get(item.task) ?? "no result";
          if (decl.rejects && failure.includes(decl.rejects.match)) rejected++;
          else {
            failed++;
            firstFailure ??= failure;
          }
        }
        const value = reward ?? 0;
        sum += value;
        chance += item.chance;
        if (item.cap) {
          reasons.add(item.cap.reason);
          if (value > item.chance + item.cap.floor + 1e-9) aboveCap.push(item.row);
        } else {
          plainSum += value;
          plainChance += item.chance;
          plainRows++;
        }
        if (value > item.chance + 1e-9) rewardedRows.push(item.row);
      }
      const meanReward = sum / applicable.length;
      const meanChance = chance / applicable.length;
      const capped = applicable.length - plainRows;
      let verdict: Verdict;
      // A rollout that failed (a crash, a timeout, a judge that could not answer) leaves the probe
      // unmeasured: an error, never a pass.
      if (failed > 0) verdict = "error";
      else if (probe.family === "control") verdict = "control";
      else verdict = aboveCap.length > 0 || (plainRows > 0 && plainSum / plainRows > plainChance / plainRows + floor + 1e-9) ? "FAIL" : "pass";
      if (plainRows > 0 && floorReason) reasons.add(floorReason);
      const reason = reasons.size ? [...reasons].join(" · ") : undefined;
      cells.push({ probe: probe.name, family: probe.family, ran: applicable.length, meanReward, rewardedRows, failed, ...(rejected ? { rejected } : {}), ...(firstFailure ? { firstFailure } : {}), chance: meanChance, floor, floorReason: reason, ...(capped ? { rowFloorRows: capped } : {}), ...(aboveCap.length ? { aboveRowFloor: aboveCap } : {}), verdict });
    }
    return { env: target.id, rows: rows.length, judged, cells, ...(decl.notes ? { notes: decl.notes } : {}) };
  } catch (error) {
    return { env: target.id, rows: 0, judged: false, cells: [], error: (error as Error).message };
  } finally {
    if (!options.workDir) rmSync(work, { recursive: true, force: true });
  }
}
