// `gym env audit`: the reward-hack audit (src/audit/) of the named environments, of a config's
// environment, or of every built-in one: prints probe × environment → mean reward, rows rewarded,
// floor and verdict; `--report FILE` writes the Markdown table; exits 4 naming the environment,
// probe and rows when any probe is rewarded above its floor.
import { writeFileSync } from "node:fs";
import { auditEnvironment, errorsOf, failuresOf, type AuditTarget, type EnvAudit, type ResolveForAudit } from "../audit/run.js";
import { PROBES } from "../audit/probes.js";
import { renderMarkdown, renderTable } from "../audit/report.js";
import { closeDispatcher } from "../http/client.js";
import { builtinIds, PROTOCOL_DRIVERS } from "../orchestrate/registry.js";
import { resolveCliConfig } from "./config_args.js";
import { EXIT, UsageError } from "./exit.js";

export interface EnvAuditOptions {
  config: string[];
  all?: boolean;
  input?: string;
  report?: string;
  rows?: string;
  probes?: string;
  concurrency?: string;
}

/** The CLI's config resolution with the scripted_model as the policy. */
export function auditResolver(overrides: readonly string[] = []): ResolveForAudit {
  return async (target: AuditTarget, scriptPath: string, extraOverrides: readonly string[] = []) => {
    const resolved = await resolveCliConfig(
      [`++policy_script_path=${scriptPath}`, ...extraOverrides, ...overrides],
      { config: target.configPaths ?? [], resourcesServer: target.configPaths?.length ? undefined : target.id, modelType: "scripted_model" },
      { command: "eval run" },
    );
    return { instances: resolved.instances, config: resolved.config, redacted: resolved.redacted };
  };
}

function positiveInt(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number ≥ 1, got ${JSON.stringify(value)}`);
  return n;
}

export async function envAudit(args: string[], options: EnvAuditOptions): Promise<void> {
  // Arguments with "=" are Hydra-style config overrides (e.g. ++gpqa_diamond.resources_servers.gpqa_diamond.strict=true).
  const overrides = args.filter((a) => a.includes("="));
  const ids = args.filter((a) => !a.includes("="));
  const known = builtinIds("resources_servers");
  const targets: AuditTarget[] = [];
  // --all: the built-in environments; the protocol drivers (openenv_remote, ors_remote) drive a remote
  // server and have no rows of their own.
  if (options.all) targets.push(...known.filter((id) => !PROTOCOL_DRIVERS.has(id)).map((id) => ({ id })));
  for (const id of ids) {
    if (!known.includes(id)) throw new UsageError(`${id}: no built-in environment of that id; built-in: ${known.join(", ")}. For your own environment use --config FILE`);
    targets.push({ id });
  }
  if (options.config.length) targets.push({ id: "config", configPaths: options.config });
  if (targets.length === 0) throw new UsageError("name environments (gym env audit mcqa string_match), --config FILE, or --all");
  if (options.input && targets.length !== 1) throw new UsageError("--input FILE audits one environment: name exactly one");
  const rows = positiveInt("--rows", options.rows, 3);
  const concurrency = positiveInt("--concurrency", options.concurrency, 4);
  let probes = PROBES;
  if (options.probes) {
    const wanted = options.probes.split(",").map((s) => s.trim()).filter(Boolean);
    const unknown = wanted.filter((w) => !PROBES.some((p) => p.name === w || p.family === w));
    if (unknown.length) throw new UsageError(`--probes: unknown ${unknown.join(", ")}; probes: ${PROBES.map((p) => p.name).join(", ")} (or a family: control, null, format, guess, wrong, tool, judge)`);
    probes = PROBES.filter((p) => wanted.includes(p.name) || wanted.includes(p.family));
  }

  const audits: EnvAudit[] = [];
  const resolve = auditResolver(overrides);
  try {
    for (const target of targets) {
      process.stderr.write(`auditing ${target.configPaths ? target.configPaths.join(", ") : target.id} …\n`);
      audits.push(await auditEnvironment(target, { rows, input: options.input, probes, concurrency, resolve, onNotice: () => {} }));
    }
  } finally {
    await closeDispatcher();
  }
  process.stdout.write(renderTable(audits));
  if (options.report) {
    const command = `gym env audit ${options.all ? "--all" : [...ids, ...options.config.map((c) => `--config ${c}`)].join(" ")}${overrides.map((o) => ` ${o}`).join("")} --rows ${rows} --report ${options.report}`;
    writeFileSync(options.report, renderMarkdown(audits, { rows, generatedBy: command }));
    process.stdout.write(`report: ${options.report}\n`);
  }
  const failures = audits.flatMap(failuresOf);
  const broken = audits.filter((a) => a.error);
  for (const a of broken) process.stderr.write(`gym: error: ${a.env} could not be audited: ${a.error}\n`);
  const unmeasured = audits.flatMap(errorsOf);
  if (unmeasured.length) process.stderr.write(`gym: error: ${unmeasured.length} probe(s) could not be measured (their rollouts failed):\n${unmeasured.map((f) => `  ${f}`).join("\n")}\n`);
  if (failures.length) {
    process.stderr.write(`gym: error: ${failures.length} probe(s) rewarded above their floor:\n${failures.map((f) => `  ${f}`).join("\n")}\n`);
    process.exitCode = EXIT.tooManyFailures;
  } else if (broken.length || unmeasured.length) {
    process.exitCode = EXIT.unexpected;
  }
}
