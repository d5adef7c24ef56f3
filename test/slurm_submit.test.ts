// `gym eval submit` through the built binary: the scripts it writes and prints, how it quotes, what it
// refuses before submitting, and that the scripts really work: the array script run once per task id
// (its #SBATCH lines are comments to bash) and then the merge script, against a fake engine.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { GYM, readJsonlFile, REPO_ROOT, runGym, NEMO_GYM_EXAMPLES } from "./helpers/cli.js";

const INPUT = join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl");

let engine: FakeEngine;
let root: string;
beforeAll(async () => {
  engine = await startFakeEngine();
  root = mkdtempSync(join(tmpdir(), "gym-submit-"));
});
afterAll(async () => {
  await engine.close();
  rmSync(root, { recursive: true, force: true });
});

const model = () => ["--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m"];

/** Runs a generated script with bash, as a Slurm node would, with the given environment. */
function bash(script: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", [script], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("gym eval submit --dry-run", () => {
  it("prints an array script and a dependent merge script with absolute, safely quoted paths", async () => {
    // A directory with a space, a single quote, a double quote and a dollar sign.
    const dir = join(root, `it's a "run" $HOME`);
    mkdirSync(dir);
    const output = join(dir, "out.jsonl");
    const result = await runGym(
      [
        "eval", "submit", "--shards", "3", "--dry-run", ...model(), "-i", INPUT, "-o", output, "--num-repeats", "2", "--quiet",
        "--partition", "gpu", "--time", "01:30:00", "--cpus-per-task", "4", "--mem", "8G", "--sbatch-arg=--comment=two words",
        // The override is there for its quoting; -a names the agent the rows run on (submit refuses rows no agent could take).
        "--max-parallel", "2", "-a", "example_single_tool_call_simple_agent", "+agent_name=some value",
      ],
      { cwd: root },
    );
    // The engine here is on loopback, which nodes of a real cluster would not reach: one warning.
    expect(result.stderr).toBe(
      `gym: warning: policy_model calls its engine at ${engine.baseUrl}, a loopback address: array tasks on other nodes will not reach it. Use an address the compute nodes can reach, or --model-server-cmd to start an engine in each task.\n`,
    );
    expect(result.code).toBe(0);
    const slurmDir = join(dir, "out_slurm");
    const array = readFileSync(join(slurmDir, "shards.sbatch"), "utf8");
    const merge = readFileSync(join(slurmDir, "merge.sbatch"), "utf8");
    // What is printed is what was written, plus the sbatch commands.
    expect(result.stdout).toContain(array);
    expect(result.stdout).toContain(merge);
    expect(result.stdout).toContain("nothing submitted");
    expect(result.stdout).toContain(`--dependency=afterok:"\${jobid%%;*}"`);
    expect(existsSync(join(slurmDir, "logs"))).toBe(true);

    expect(array).toContain("#SBATCH --array=0-2%2\n"); // --max-parallel 2
    expect(array).not.toContain("--max-parallel"); // submit's own option, not forwarded to eval run
    expect(array).toContain(`#SBATCH --output="${slurmDir.replace(/"/g, '\\"')}/logs/%x-%A_%a.out"\n`);
    for (const line of ["#SBATCH --partition=gpu", "#SBATCH --time=01:30:00", "#SBATCH --cpus-per-task=4", "#SBATCH --mem=8G", '#SBATCH --comment="two words"']) {
      expect(array).toContain(`${line}\n`);
      expect(merge).toContain(`${line}\n`);
    }
    // The same node binary and CLI entry, absolute, so the job needs no PATH.
    expect(array).toContain(`exec ${process.execPath} ${GYM} eval run \\\n`);
    expect(array).toContain(`--shard "\${SLURM_ARRAY_TASK_ID}/3"`);
    expect(array).toMatch(/--resume\n$/);
    expect(array).toContain(`--input ${INPUT}`);
    expect(array).toContain(`'+agent_name=some value'`);
    expect(merge).toContain("#SBATCH --kill-on-invalid-dep=yes");
    expect(merge).toContain(`exec ${process.execPath} ${GYM} eval aggregate \\\n`);
    expect(merge).toContain("--resources-server example_single_tool_call");

    // The quoting survives bash: the words the shell sees are exactly the intended paths.
    const shardLine = array.split("\n").find((l) => l.trimStart().startsWith("--output "))!;
    const globLine = merge.split("\n").find((l) => l.trimStart().startsWith("--input-glob "))!;
    const probe = join(root, "probe.sh");
    writeFileSync(probe, `SLURM_ARRAY_TASK_ID=7\nprintf '%s\\n' ${shardLine.trim().replace(/ \\$/, "")} ${globLine.trim().replace(/ \\$/, "")}\n`);
    const words = (await bash(probe)).output.split("\n");
    expect(words.slice(0, 4)).toEqual(["--output", join(dir, "out-shard7.jsonl"), "--input-glob", join(dir, "out-shard*.jsonl")]);
  });

  it("forwards exactly the run flags given, with config and input paths made absolute, and runs in the submit directory", async () => {
    const output = join(root, "fwd", "out.jsonl");
    const result = await runGym(
      ["eval", "submit", "--shards", "2", "--dry-run", "--config", "examples/quickstart.yaml", "-o", output, "--no-serve", "--head-url", "http://head:1", "--concurrency", "4", "--dir", join(root, "fwd", "jobs")],
      { cwd: REPO_ROOT },
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const array = readFileSync(join(root, "fwd", "jobs", "shards.sbatch"), "utf8");
    const merge = readFileSync(join(root, "fwd", "jobs", "merge.sbatch"), "utf8");
    // Relative paths inside the config (the recording) resolve against the directory the jobs cd to.
    expect(array).toContain(`cd ${REPO_ROOT}\n`);
    expect(array).toContain(`--config ${join(REPO_ROOT, "examples", "quickstart.yaml")} \\`);
    expect(array).toContain(`--input ${join(REPO_ROOT, "examples", "quickstart.jsonl")} \\`);
    for (const flag of ["--no-serve \\", "--head-url http://head:1 \\", "--concurrency 4 \\"]) expect(array).toContain(flag);
    // Defaults are left to `eval run`; flags of submit itself are not passed on.
    for (const flag of ["--model-ready-timeout", "--quiet", "--dir", "--shards"]) expect(array).not.toContain(flag);
    expect(merge).toContain(`--config ${join(REPO_ROOT, "examples", "quickstart.yaml")}`);
    expect(merge).not.toContain("--concurrency");
    expect(merge).toContain(`--output ${output}`);
  });

  it("validates the config and the inputs before anything is written or submitted (exit 2)", async () => {
    const output = join(root, "bad", "out.jsonl");
    const typo = await runGym(["eval", "submit", "--shards", "2", ...model(), "-i", INPUT, "-o", output, "example_single_tool_call_simple_agent.responses_api_agents.simple_agent.max_stepz=3"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("max_stepz");

    const missing = await runGym(["eval", "submit", "--shards", "2", ...model(), "-i", join(root, "nope.jsonl"), "-o", output]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`cannot read ${join(root, "nope.jsonl")}: no such file or folder`);

    const badNumber = await runGym(["eval", "submit", "--shards", "0", ...model(), "-i", INPUT, "-o", output, "--dry-run"]);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toContain("--shards must be a whole number ≥ 1");

    const badRepeats = await runGym(["eval", "submit", "--shards", "2", ...model(), "-i", INPUT, "-o", output, "--num-repeats", "x", "--dry-run"]);
    expect(badRepeats.code).toBe(2);

    // No sbatch on PATH: a clear message that points at --dry-run.
    const noSlurm = await runGym(["eval", "submit", "--shards", "2", ...model(), "-i", INPUT, "-o", output], { env: { PATH: join(root, "empty-path") } });
    expect(noSlurm.code).toBe(2);
    expect(noSlurm.stderr).toContain("sbatch not found on PATH");
    expect(noSlurm.stderr).toContain("--dry-run");
    expect(existsSync(join(root, "bad"))).toBe(false);
  });

  it("refuses shard files left by an earlier run with more shards, which the merge glob would pick up", async () => {
    const dir = join(root, "stale");
    mkdirSync(dir);
    writeFileSync(join(dir, "out-shard3.jsonl"), "");
    const result = await runGym(["eval", "submit", "--shards", "2", ...model(), "-i", INPUT, "-o", join(dir, "out.jsonl"), "--dry-run"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(dir, "out-shard3.jsonl"));
  });
});

describe("the generated scripts, run by bash", () => {
  it("array tasks 0..N-1 then the merge produce every (task, rollout) pair exactly once", async () => {
    const dir = join(root, "run dir");
    mkdirSync(dir);
    const output = join(dir, "merged.jsonl");
    const shards = 3;
    const printed = await runGym(["eval", "submit", "--shards", String(shards), "--dry-run", ...model(), "-i", INPUT, "-o", output, "--num-repeats", "2", "--quiet"]);
    expect(printed.code).toBe(0);
    const slurmDir = join(dir, "merged_slurm");

    // Without a task id the array script refuses to guess.
    const bare = await bash(join(slurmDir, "shards.sbatch"), { SLURM_ARRAY_TASK_ID: "" });
    expect(bare.code).not.toBe(0);
    expect(bare.output).toContain("SLURM_ARRAY_TASK_ID");

    for (let i = 0; i < shards; i++) {
      const task = await bash(join(slurmDir, "shards.sbatch"), { SLURM_ARRAY_TASK_ID: String(i) });
      expect(task.code, task.output).toBe(0);
      expect(existsSync(join(dir, `merged-shard${i}.jsonl.done`))).toBe(true);
    }
    // A requeued task resumes: nothing is run twice.
    const before = engine.requests.length;
    const again = await bash(join(slurmDir, "shards.sbatch"), { SLURM_ARRAY_TASK_ID: "1" });
    expect(again.code, again.output).toBe(0);
    expect(engine.requests.length).toBe(before);

    const merged = await bash(join(slurmDir, "merge.sbatch"));
    expect(merged.code, merged.output).toBe(0);
    expect(merged.output).toContain("merged 3 shards: 10/10 rollouts succeeded");
    const pairs = readJsonlFile(output).map((r) => `${r._ng_task_index}/${r._ng_rollout_index}`);
    expect(pairs).toEqual([0, 1, 2, 3, 4].flatMap((t) => [`${t}/0`, `${t}/1`]));
    const metrics = JSON.parse(readFileSync(join(dir, "merged_aggregate_metrics.json"), "utf8"));
    expect(metrics[0].agent_ref.name).toBe("example_single_tool_call_simple_agent");
  }, 300_000); // N array tasks and a merge, each a full CLI run, on a busy machine
});

describe("secrets in a submission", () => {
  const KEY = `pw-${randomBytes(6).toString("hex")}`;
  const API_KEY = `sk-${randomBytes(6).toString("hex")}`;
  const row = { responses_create_params: { input: [{ role: "user", content: "what's it like in sf?" }] } };
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

  it("are neither printed nor written: the scripts read them from the environment sbatch passes on", async () => {
    const dir = join(root, "secret");
    mkdirSync(dir);
    const input = join(dir, "in.jsonl");
    writeFileSync(input, `${JSON.stringify(row)}\n`);
    const secretUrl = engine.baseUrl.replace("http://", `http://user:${KEY}@`);
    const args = ["--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", secretUrl, "--model", "m", "--model-api-key", API_KEY];
    const printed = await runGym(["eval", "submit", "--shards", "1", "--dry-run", ...args, "-i", input, "-o", join(dir, "out.jsonl"), "--quiet"]);
    expect(printed.code, printed.stderr).toBe(0);
    const slurmDir = join(dir, "out_slurm");
    const scripts = [join(slurmDir, "shards.sbatch"), join(slurmDir, "merge.sbatch")].map((f) => readFileSync(f, "utf8"));
    for (const text of [printed.stdout, printed.stderr, ...scripts]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(API_KEY);
    }
    expect(scripts[0]).toContain(`--model-url "\${GYM_POLICY_BASE_URL}"`);
    expect(scripts[0]).toContain(`--model-api-key "\${GYM_POLICY_API_KEY}"`);
    expect(printed.stdout).toContain("export them first");

    // Without the variables the job stops at once, naming the one it lacks.
    const bare = await bash(join(slurmDir, "shards.sbatch"), { SLURM_ARRAY_TASK_ID: "0", GYM_POLICY_BASE_URL: "", GYM_POLICY_API_KEY: "" });
    expect(bare.code).not.toBe(0);
    expect(bare.output).toContain("GYM_POLICY_BASE_URL");

    // With them (what sbatch's --export=ALL does), the real call authenticates with the URL's credentials.
    const before = engine.requests.length;
    const task = await bash(join(slurmDir, "shards.sbatch"), { SLURM_ARRAY_TASK_ID: "0", GYM_POLICY_BASE_URL: secretUrl, GYM_POLICY_API_KEY: API_KEY });
    expect(task.code, task.output).toBe(0);
    const calls = engine.requests.slice(before);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.headers.authorization).toBe(basic("user", KEY));
    expect(task.output).not.toContain(KEY);

    // A key alone goes as the bearer token.
    const keyOnly = await runGym(["eval", "submit", "--shards", "1", "--dry-run", ...args.slice(0, 5), engine.baseUrl, "--model", "m", "--model-api-key", API_KEY, "-i", input, "-o", join(dir, "key.jsonl"), "--quiet"]);
    expect(keyOnly.code, keyOnly.stderr).toBe(0);
    expect(keyOnly.stdout).not.toContain(API_KEY);
    const mark = engine.requests.length;
    const keyed = await bash(join(dir, "key_slurm", "shards.sbatch"), { SLURM_ARRAY_TASK_ID: "0", GYM_POLICY_API_KEY: API_KEY });
    expect(keyed.code, keyed.output).toBe(0);
    expect(engine.requests.slice(mark).map((r) => r.headers.authorization)).toContain(`Bearer ${API_KEY}`);
  }, 120_000);

  it("refuses an --export that would keep them out of the job (exit 2)", async () => {
    // Its own folder and input: it must not rely on the test above having run first.
    const dir = mkdtempSync(join(root, "export-"));
    const input = join(dir, "in.jsonl");
    writeFileSync(input, `${JSON.stringify(row)}\n`);
    const result = await runGym(["eval", "submit", "--shards", "1", "--dry-run", ...model(), "--model-api-key", API_KEY, "-i", input, "-o", join(dir, "none.jsonl"), "--sbatch-arg=--export=NONE"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "gym: error: --sbatch-arg --export=NONE keeps GYM_POLICY_API_KEY out of the job, and the job's command line reads it from there (secrets are never written into the scripts): use --export=ALL or add GYM_POLICY_API_KEY to the list\n",
    );
    expect(result.stderr).not.toContain(API_KEY);
    const listed = await runGym(["eval", "submit", "--shards", "1", "--dry-run", ...model(), "--model-api-key", API_KEY, "-i", input, "-o", join(dir, "listed.jsonl"), "--sbatch-arg=--export=PATH,GYM_POLICY_API_KEY", "--quiet"]);
    expect(listed.code, listed.stderr).toBe(0);
  });
});
