// Everything `gym eval run` (and `eval submit`) can check before the engine or any server starts
// (issue 18): the input read through once (every line parsed and validated, every row routed to an
// agent the config defines, the repeats map against those agents, a shard that would get no task),
// the ports the config fixes, and whether a `--resume` has anything left to run at all. Also what
// `--dry-run` prints: the plan, the commands it would start, the resolved config with secrets hidden.
// (No upstream counterpart: NeMo Gym at 07d6b0d checks these as it reaches them.)
import { createServer } from "node:net";
import { stringify } from "yaml";
import { planProgress } from "../collect/collect.js";
import { previewPlan, type PlanOptions, type PlanPreview, type Shard } from "../collect/plan.js";
import { UserError } from "../config/user_error.js";
import { redactUrlsIn } from "../config/url_secrets.js";
import type { InstanceSpec } from "./start.js";

export class PortInUseError extends UserError {}

/** The plan-deciding settings, as `writePlan` takes them (seeds included), less the file it writes. */
export type PlanCheckOptions = Omit<PlanOptions, "planPath">;

/** The agent instances a config starts: what rows may name, and what a repeats map is checked against. */
export function agentNamesOf(instances: readonly InstanceSpec[]): Set<string> {
  return new Set(instances.filter((i) => i.type === "responses_api_agents").map((i) => i.name));
}

/** Reads the whole input as the plan would, writing nothing; throws the plan's own error naming file and line. */
export function checkPlan(options: PlanCheckOptions): Promise<PlanPreview> {
  return previewPlan(options);
}

function portTaken(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

/** Every fixed port the run would listen on (instances with a `port`, `--model-server-port`) is free now. */
export async function checkPortsFree(instances: readonly InstanceSpec[], extra: Array<{ what: string; port: number }> = []): Promise<void> {
  const wanted = [
    ...instances
      .filter((i) => i.externalUrl === undefined && typeof i.fields.port === "number" && i.fields.port > 0)
      .map((i) => ({ what: `instance "${i.name}" (its config's port)`, host: typeof i.fields.host === "string" ? i.fields.host : "127.0.0.1", port: i.fields.port as number })),
    ...extra.map((e) => ({ ...e, host: "127.0.0.1" })),
  ];
  const problems: string[] = [];
  for (const w of wanted) {
    const code = await portTaken(w.host, w.port);
    if (code !== undefined) problems.push(`${w.what}: ${w.host}:${w.port} ${code === "EADDRINUSE" ? "is already in use" : `cannot be listened on (${code})`}`);
  }
  if (problems.length > 0) {
    throw new PortInUseError(`${problems.join("; ")}. Stop what holds ${problems.length === 1 ? "it" : "them"} or choose another port (0 picks a free one); nothing was started`);
  }
}

/** Secrets in a shell command: URL passwords, and the value after a flag named like a key, token or password. */
export function redactCommand(command: string): string {
  return redactUrlsIn(command).replace(/(--?[\w-]*(?:key|token|secret|password)[\w-]*)(=|\s+)(\S+)/gi, "$1$2***");
}

export interface DryRunView {
  input: string;
  output: string;
  shard?: Shard;
  preview?: PlanPreview;
  /** On --resume with a plan on disk: its pairs and those still to run. */
  progress?: { planned: number; pending: number };
  /** `bash -c` command of --model-server-cmd with its port, if any. */
  modelServer?: { command: string; port: number; url: string; log: string };
  instances: readonly InstanceSpec[];
  /** The merged config with secrets hidden. */
  redactedConfig: Record<string, unknown>;
  /** --no-serve: the head whose servers it would use. */
  headUrl?: string;
}

/** The text `gym eval run --dry-run` prints. */
export function renderDryRun(view: DryRunView): string {
  const lines: string[] = ["# gym eval run --dry-run: nothing was started and nothing written", "", "plan:"];
  lines.push(`  input:  ${view.input}`, `  output: ${view.output}${view.shard ? ` (shard ${view.shard.index}/${view.shard.count})` : ""}`);
  if (view.progress) {
    lines.push(`  --resume: ${view.progress.planned} rollouts planned, ${view.progress.planned - view.progress.pending} with a final outcome, ${view.progress.pending} to run`);
  }
  if (view.preview) {
    const p = view.preview;
    lines.push(`  ${p.tasks} task${p.tasks === 1 ? "" : "s"}, ${p.total} rollout${p.total === 1 ? "" : "s"}`);
    const width = Math.max(5, ...[...p.agents.keys()].map((a) => a.length));
    lines.push(`  ${"agent".padEnd(width)}  ${"tasks".padStart(7)}  ${"rollouts".padStart(9)}`);
    for (const [agent, e] of [...p.agents].sort(([a], [b]) => a.localeCompare(b))) lines.push(`  ${agent.padEnd(width)}  ${String(e.tasks).padStart(7)}  ${String(e.rollouts).padStart(9)}`);
    for (const warning of p.warnings) lines.push(`  warning: ${warning}`);
  }
  lines.push("", "would start:");
  if (view.headUrl !== undefined) {
    lines.push(`  nothing (--no-serve): the servers the head at ${redactUrlsIn(view.headUrl)} knows`);
  } else {
    if (view.modelServer) {
      lines.push(`  model server: bash -c ${JSON.stringify(redactCommand(view.modelServer.command))} (port ${view.modelServer.port}, policy at ${redactUrlsIn(view.modelServer.url)}, log ${view.modelServer.log})`);
    }
    lines.push("  head server on 127.0.0.1 (a free port)");
    for (const i of view.instances) {
      const where = i.externalUrl !== undefined ? `already running at ${redactUrlsIn(i.externalUrl)} (not started)` : i.python ? `NeMo Gym Python server ${i.python.dir}/${i.python.entrypoint}` : i.entrypoint ? `module ${i.entrypoint}` : "Gymkit server";
      lines.push(`  ${i.type} ${i.name} (${i.implementation}): ${where}`);
    }
  }
  lines.push("", "resolved config (secrets hidden):", ...stringify(view.redactedConfig).trimEnd().split("\n").map((l) => `  ${l}`));
  return `${lines.join("\n")}\n`;
}

export interface BeforeStartOptions {
  plan: PlanCheckOptions;
  outputPath: string;
  resume: boolean;
  maxAttempts: number;
  /** The instances the run would start (their fixed ports are checked); none with --no-serve. */
  instances: readonly InstanceSpec[];
  /** Other fixed ports (`--model-server-port`). */
  ports: Array<{ what: string; port: number }>;
}

export interface BeforeStart {
  /** What the plan will hold; checked unless a --resume finds a plan already made (it was checked then). */
  preview?: PlanPreview;
  /** A --resume's plan on disk: its pairs, and those still to run. */
  progress?: { planned: number; pending: number };
}

/** The checks of a run that need no server: the plan from the input (or the plan on disk) and the ports. */
export async function checkBeforeStart(options: BeforeStartOptions): Promise<BeforeStart> {
  const progress = options.resume ? await planProgress(options.outputPath, options.maxAttempts) : undefined;
  const preview = progress ? undefined : await checkPlan(options.plan);
  await checkPortsFree(options.instances, options.ports);
  return { ...(preview ? { preview } : {}), ...(progress ? { progress } : {}) };
}
