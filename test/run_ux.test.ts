// `gym eval run` as a user sees it when things go slowly or wrong: retried calls counted in the live
// line and the summary (in one process and across a process per server), a heartbeat naming what is
// in flight, the default whole-rollout deadline that really aborts the in-flight calls, and a resume
// whose progress counts only its own work.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { engineOf } from "./helpers/scope.js";
import { displayWidth } from "../src/cli/text_width.js";
import { shellQuote } from "../src/orchestrate/slurm.js";
import { GYM, headUrlIn, readJsonlFile, REPO_ROOT, runGym, startGym, stopChild, waitForOutput } from "./helpers/cli.js";
import type { FakeEngine } from "./doubles/fake_engine.js";

const EXAMPLE = join(REPO_ROOT, "src", "environments", "example_single_tool_call", "data", "example.jsonl");
const AGENT = "example_single_tool_call_simple_agent";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gym-runux-"));
});

/** N distinct tasks of example_single_tool_call (two model calls and one tool call each). */
function writeInput(name: string, tasks: number): string {
  const base = JSON.parse(readFileSync(EXAMPLE, "utf8").split("\n")[0]!) as { responses_create_params: { input: Array<{ content: string }> } };
  const lines: string[] = [];
  for (let i = 0; i < tasks; i++) {
    const row = structuredClone(base);
    row.responses_create_params.input[1]!.content = `what's it like in sf? (question ${i})`;
    lines.push(JSON.stringify(row));
  }
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

function modelArgs(engine: FakeEngine, options: { timeoutS?: number; retries?: number } = {}): string[] {
  return [
    "--resources-server",
    "example_single_tool_call",
    "--model-type",
    "vllm_model",
    "--model-url",
    engine.baseUrl,
    "--model",
    "m",
    `++policy_model.responses_api_models.vllm_model.request_timeout_s=${options.timeoutS ?? 30}`,
    "++policy_model.responses_api_models.vllm_model.retry_backoff_s=0.01",
    `++policy_model.responses_api_models.vllm_model.max_retries=${options.retries ?? 3}`,
  ];
}

describe("retried calls are counted and shown", () => {
  for (const layout of ["one process", "process per server"]) {
    it(`${layout}: the summary's retry counts equal the faults the engine served, and the run still succeeds`, async () => {
      // Seeded 500s and connection resets; a budget of 30 retries per model call means none runs out.
      const engine = await engineOf({ faults: { seed: 11, error: 0.2, reset: 0.05 } });
      const input = writeInput(`retry_in_${layout.replace(/ /g, "_")}.jsonl`, 30);
      const output = join(dir, `retry_out_${layout.replace(/ /g, "_")}.jsonl`);
      const args = ["eval", "run", ...modelArgs(engine, { retries: 30 }), "-i", input, "-o", output, "--num-repeats", "2", "--concurrency", "8"];
      if (layout === "process per server") args.push("--process-per-server");
      const result = await runGym(args, { timeoutMs: 180_000 });
      expect(result.stderr).not.toContain("error");
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("60/60 rollouts succeeded, 0 failed");
      const { error, reset } = engine.faultsServed;
      expect(error).toBeGreaterThan(0);
      expect(reset).toBeGreaterThan(0);
      const line = /retried (\d+) calls \(([^)]*)\); ([\d.]+ s|\d+ min \d+ s) of call time lost to them/.exec(result.stdout);
      expect(line, result.stdout).not.toBeNull();
      expect(Number(line![1])).toBe(error + reset);
      expect(line![2]).toMatch(new RegExp(`^5xx ${error}: [^,]+ s, connection ${reset}: [^,]+ s$`));
      if (layout === "one process") {
        // The live line (plain lines here: stderr is not a terminal) counts them as they happen.
        const last = result.stderr.trimEnd().split("\n").filter((l) => l.startsWith("[gym]")).at(-1)!;
        expect(last).toContain(`retried ${error + reset} (5xx ${error}, connection ${reset};`);
      }
    });
  }

  it("a clean run prints no retry line", async () => {
    const engine = await engineOf();
    const output = join(dir, "clean_out.jsonl");
    const result = await runGym(["eval", "run", ...modelArgs(engine), "-i", writeInput("clean_in.jsonl", 3), "-o", output, "--quiet"]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("retried");
  });
});

describe("no silent hangs", () => {
  it("prints a heartbeat naming the oldest rollouts in flight when none finishes for a while (stderr not a terminal)", async () => {
    // Each rollout is two model calls of 1.5 s: at least 3 s with none finishing, past the scheduler's
    // second check (one a second) for a 1 s heartbeat, whatever the load.
    const engine = await engineOf({ delayMs: 1_500 });
    const output = join(dir, "heartbeat_out.jsonl");
    const result = await runGym(["eval", "run", ...modelArgs(engine), "-i", writeInput("heartbeat_in.jsonl", 2), "-o", output, "--quiet", "--heartbeat", "1"], { timeoutMs: 120_000 });
    expect(result.code).toBe(0);
    const beat = result.stderr.split("\n").find((l) => l.includes("no rollout finished in the last"));
    expect(beat, result.stderr).toBeDefined();
    expect(beat).toMatch(/^gym: no rollout finished in the last [\d.]+ s; 2 in flight, the oldest: \(task [01], rollout 0, agent example_single_tool_call_simple_agent, [\d.]+ s\), \(task [01], rollout 0, agent example_single_tool_call_simple_agent, [\d.]+ s\)$/);
    const quiet = await runGym(["eval", "run", ...modelArgs(engine), "-i", writeInput("heartbeat_off_in.jsonl", 1), "-o", join(dir, "heartbeat_off.jsonl"), "--quiet", "--heartbeat", "0"], { timeoutMs: 120_000 });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
  });

  it("--rollout-timeout fails a stuck rollout as `timeout` and aborts its in-flight calls down to the engine", async () => {
    // Every model call hangs. Servers run in `gym env start`, so they outlive the collection and
    // what they still hold open afterwards can be seen.
    const engine = await engineOf({ faults: { seed: 1, hang: 1 } });
    const server = startGym(["env", "start", ...modelArgs(engine, { timeoutS: 600, retries: 0 }), "--head-port", "0"]);
    try {
      const headUrl = headUrlIn(await waitForOutput(server, (t) => t.includes("head server:")));
      const output = join(dir, "deadline_out.jsonl");
      const run = await runGym(
        ["eval", "run", "--no-serve", "--head-url", headUrl, "--agent", AGENT, "-i", writeInput("deadline_in.jsonl", 2), "-o", output, "--quiet", "--rollout-timeout", "1"],
        { timeoutMs: 120_000 },
      );
      expect(run.code).toBe(4);
      const failures = readJsonlFile(join(dir, "deadline_out_failures.jsonl"));
      expect(failures.map((f) => f._ng_failure_class)).toEqual(["timeout", "timeout"]);
      expect(failures[0]!._ng_failure_error).toBe("rollout deadline of 1 s passed");
      expect(engine.faultsServed.hang).toBe(2);
      // The collector's abort reached the agent, which dropped its model call, which dropped the engine's.
      const deadline = Date.now() + 30_000;
      while (engine.hangingNow() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(engine.hangingNow()).toBe(0);
    } finally {
      await stopChild(server);
    }
  });

  it("--rollout-timeout takes seconds, 0 or none; anything else is a usage error naming the flag", async () => {
    const engine = await engineOf();
    for (const value of ["none", "0"]) {
      const result = await runGym(["eval", "run", ...modelArgs(engine), "-i", writeInput(`off_${value}.jsonl`, 1), "-o", join(dir, `off_${value}_out.jsonl`), "--quiet", "--rollout-timeout", value]);
      expect(result.code).toBe(0);
    }
    const bad = await runGym(["eval", "run", ...modelArgs(engine), "-i", writeInput("bad_timeout.jsonl", 1), "-o", join(dir, "bad_timeout_out.jsonl"), "--rollout-timeout", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('gym: error: --rollout-timeout must be a number of seconds ≥ 0 (0 or none: no deadline), got "soon"');
    const help = (await runGym(["eval", "run", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain("default 3600");
    expect(help).toContain("0 or none: no deadline");
  });
});

describe("--resume progress", () => {
  it("counts the pairs done before as done from the first line, and not in the rate", async () => {
    const engine = await engineOf();
    const input = writeInput("resume_in.jsonl", 10);
    const output = join(dir, "resume_out.jsonl");
    const first = await runGym(["eval", "run", ...modelArgs(engine), "-i", input, "-o", output, "--quiet"]);
    expect(first.code).toBe(0);
    const lines = readFileSync(output, "utf8").trimEnd().split("\n");
    writeFileSync(output, `${lines.slice(0, 8).join("\n")}\n`);
    const resumed = await runGym(["eval", "run", ...modelArgs(engine), "-i", input, "-o", output, "--resume", "--concurrency", "1"]);
    expect(resumed.code).toBe(0);
    const progress = resumed.stderr.split("\n").filter((l) => l.startsWith("[gym]"));
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress) expect(line).toMatch(/^\[gym\] (9|10)\/10 rollouts \(8 done before this run\) /);
    expect(progress.at(-1)).toMatch(/^\[gym\] 10\/10 rollouts/);
  });
});

describe("the live line on a real terminal (a pseudo-terminal from `script`)", () => {
  /** What the terminal shows at the end, and every live line drawn on the way. */
  function replay(text: string): { rows: string[]; drawn: string[] } {
    const rows: string[] = [""];
    const drawn: string[] = [];
    // The terminal turns "\n" into "\r\n"; the printer clears a row with "\r" + ESC[2K.
    // eslint-disable-next-line no-control-regex
    for (const part of text.split(/(\r\x1b\[2K|\r?\n)/)) {
      if (part === "\r\x1b[2K") rows[rows.length - 1] = "";
      else if (part === "\n" || part === "\r\n") rows.push("");
      else {
        rows[rows.length - 1] += part;
        if (part.startsWith("[gym]")) drawn.push(part);
      }
    }
    return { rows, drawn };
  }

  it("fits the terminal's width with wide agent names, gives notices their own line, and leaves no line behind", async () => {
    const engine = await engineOf({ delayMs: 700 });
    const agent = "代理人_エージェント_🚀_agent";
    const config = join(dir, "wide_agent.yaml");
    writeFileSync(
      config,
      [
        "example_single_tool_call:",
        "  resources_servers:",
        "    example_single_tool_call:",
        "      domain: agent",
        "      verified: false",
        `${agent}:`,
        "  responses_api_agents:",
        "    simple_agent:",
        "      resources_server: {type: resources_servers, name: example_single_tool_call}",
        "      model_server: {type: responses_api_models, name: policy_model}",
        "",
      ].join("\n"),
    );
    const output = join(dir, "tty_out.jsonl");
    const gym = [process.execPath, GYM, "eval", "run", "--config", config, "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m"];
    gym.push("-a", agent, "-i", writeInput("tty_in.jsonl", 6), "-o", output, "--concurrency", "2", "--heartbeat", "1");
    const columns = 50;
    const child = spawn("script", ["-qfec", `stty cols ${columns} rows 24; exec ${gym.map(shellQuote).join(" ")}`, "/dev/null"], { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (d: Buffer) => (text += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, text).toBe(0);
    const { rows, drawn } = replay(text);
    // The live line was drawn, never wider than the terminal (one column spare), with the agent's name.
    expect(drawn.length).toBeGreaterThan(0);
    for (const line of drawn) expect(displayWidth(line)).toBeLessThan(columns);
    expect(drawn.at(-1)).toMatch(/^\[gym\] 6\/6 rollouts/);
    // Heartbeats came while rollouts were slow, each on a line of its own, none glued to a live line.
    const beats = rows.filter((r) => r.includes("no rollout finished"));
    expect(beats.length).toBeGreaterThan(0);
    for (const beat of beats) expect(beat).toMatch(/^gym: no rollout finished in the last/);
    expect(beats.some((b) => b.includes(`agent ${agent}`))).toBe(true);
    // Nothing of the live line is left on screen once the run is over.
    expect(rows.filter((r) => r.includes("[gym]"))).toEqual([]);
    expect(rows.join("\n")).toContain("6/6 rollouts succeeded, 0 failed");
  });
});
