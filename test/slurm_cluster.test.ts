// `gym eval submit` against a real single-node Slurm (Debian's slurm-wlm + munge) that this file starts
// in a temporary directory: its own munge key and socket, its own slurm.conf (SLURM_CONF), ports and
// state, so nothing of the machine's is used or changed. The jobs run the real `gym` against a fake
// engine on 127.0.0.1. Skipped only when Slurm is not installed and GYM_REQUIRE_SLURM is not set.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { accessSync, chmodSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { hostname, tmpdir, userInfo } from "node:os";
import { randomBytes } from "node:crypto";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { readJsonlFile, runGym, NEMO_GYM_EXAMPLES } from "./helpers/cli.js";

/** Daemons live in sbin, which a non-root PATH often lacks. */
function which(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin", "/sbin"];
  for (const dir of dirs.filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

const SLURMCTLD = which("slurmctld");
const required = Boolean(process.env.GYM_REQUIRE_SLURM);

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, diagnostics: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${diagnostics()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(!SLURMCTLD && !required)("gym eval submit on a real single-node Slurm", () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  let engine: FakeEngine;
  const daemons: ChildProcess[] = [];
  const logs = () => {
    const dir = join(root, "log");
    return existsSync(dir) ? readdirSync(dir).map((f) => `--- ${f}\n${readFileSync(join(dir, f), "utf8").slice(-3000)}`).join("\n") : "";
  };

  function daemon(cmd: string, args: string[], logName: string): ChildProcess {
    const out = openSync(join(root, "log", logName), "a");
    const child = spawn(cmd, args, { env, stdio: ["ignore", out, out] });
    daemons.push(child);
    return child;
  }

  beforeAll(async () => {
    if (!SLURMCTLD) throw new Error("GYM_REQUIRE_SLURM is set but slurmctld is not installed (apt-get install -y slurm-wlm munge)");
    const startedAt = Date.now();
    engine = await startFakeEngine();
    root = mkdtempSync(join(tmpdir(), "gym-slurm-"));
    chmodSync(root, 0o755);
    for (const sub of ["log", "state", "spool", "munge", "run"]) mkdirSync(join(root, sub));
    chmodSync(join(root, "munge"), 0o700);
    const key = join(root, "munge", "munge.key");
    writeFileSync(key, randomBytes(1024), { mode: 0o400 });
    const socket = join(root, "run", "munge.sock");

    const node = hostname().split(".")[0]!;
    const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
    const conf = join(root, "slurm.conf");
    writeFileSync(
      conf,
      [
        "ClusterName=gymtest",
        `SlurmctldHost=${node}(127.0.0.1)`,
        `SlurmUser=${userInfo().username}`,
        "AuthType=auth/munge",
        "CredType=cred/munge",
        `AuthInfo=socket=${socket}`,
        `SlurmctldPort=${ctldPort}`,
        `SlurmdPort=${slurmdPort}`,
        `StateSaveLocation=${join(root, "state")}`,
        `SlurmdSpoolDir=${join(root, "spool")}`,
        `SlurmctldPidFile=${join(root, "run", "slurmctld.pid")}`,
        `SlurmdPidFile=${join(root, "run", "slurmd.pid")}`,
        `SlurmctldLogFile=${join(root, "log", "slurmctld.log")}`,
        `SlurmdLogFile=${join(root, "log", "slurmd.log")}`,
        // No cgroups in a container: plain process tracking, no task binding, no accounting daemon.
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "ReturnToService=2",
        "SchedulerType=sched/builtin",
        // Finished jobs stay visible to scontrol (there is no accounting database for sacct).
        "MinJobAge=600",
        "KillWait=5",
        `NodeName=${node} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN`,
        `PartitionName=debug Nodes=${node} Default=YES MaxTime=INFINITE State=UP`,
        "",
      ].join("\n"),
    );
    env = { ...process.env, SLURM_CONF: conf };

    daemon(which("munged") ?? "munged", ["--foreground", "--force", `--socket=${socket}`, `--key-file=${key}`, `--log-file=${join(root, "log", "munged.log")}`, `--pid-file=${join(root, "run", "munged.pid")}`, `--seed-file=${join(root, "munge", "seed")}`], "munged.out");
    await until("munged's socket", 30_000, async () => (existsSync(socket) ? true : undefined), logs);
    daemon(SLURMCTLD, ["-D", "-i", "-f", conf], "slurmctld.out");
    daemon(which("slurmd") ?? "slurmd", ["-D", "-f", conf], "slurmd.out");
    await until("the node to be idle in sinfo", 60_000, async () => ((await run("sinfo", ["-h", "-o", "%T"], env)).stdout.trim() === "idle" ? true : undefined), logs);
    process.stderr.write(`slurm_cluster: Slurm started in ${Date.now() - startedAt} ms\n`);
  }, 120_000);

  afterAll(async () => {
    if (env) await run("scancel", ["--user", userInfo().username], env);
    await Promise.all(
      daemons.reverse().map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
            child.once("exit", () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill("SIGTERM");
          }),
      ),
    );
    await engine?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  }, 30_000);

  /** `JobState` and `ExitCode` of a job, one entry per array task. */
  async function jobStates(id: string): Promise<Array<{ state: string; exit: string }>> {
    const { stdout } = await run("scontrol", ["show", "job", "-o", id], env);
    return stdout
      .split("\n")
      .filter((l) => l.includes("JobState="))
      .map((l) => ({ state: /JobState=(\S+)/.exec(l)![1]!, exit: /ExitCode=(\S+)/.exec(l)![1]! }));
  }
  const FINAL = new Set(["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"]);

  // Both tests use one output, as a user would: the first run fails, the same command then finishes it.
  const dir = () => join(root, 'out "dir" 1');
  const output = () => join(dir(), "merged.jsonl");
  const slurmLogs = () => join(dir(), "merged_slurm", "logs");
  const jobLogs = () =>
    existsSync(slurmLogs()) ? readdirSync(slurmLogs()).map((f) => `--- ${f}\n${readFileSync(join(slurmLogs(), f), "utf8").slice(-2000)}`).join("\n") : "(no job logs)";
  const diagnostics = () => `${jobLogs()}\n${logs()}`;

  /** `gym eval submit` for real (no --dry-run); returns the two job ids. */
  async function submit(modelUrl: string, extra: string[] = []): Promise<[string, string]> {
    const input = join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl");
    const submitted = await runGym(
      ["eval", "submit", "--shards", "3", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", modelUrl, "--model", "m", "-i", input, "-o", output(), "--num-repeats", "2", "--quiet", "--time", "00:05:00", ...extra],
      { env: { SLURM_CONF: env.SLURM_CONF } },
    );
    // A single-node cluster reaches loopback; the warning meant for real clusters is all stderr holds.
    expect(submitted.stderr.replace(/^gym: warning: policy_model calls its engine at \S+, a loopback address: .*\n/m, "")).toBe("");
    expect(submitted.code).toBe(0);
    const ids = /array job (\d+) and the merge as job (\d+)/.exec(submitted.stdout);
    expect(ids, submitted.stdout).not.toBeNull();
    expect(submitted.stdout).toContain(`squeue -j ${ids![1]},${ids![2]}`);
    expect(submitted.stdout).toContain(`output:  ${output()}`);
    return [ids![1]!, ids![2]!];
  }

  const finished = (id: string) =>
    until(`job ${id} to finish`, 120_000, async () => {
      const [state] = await jobStates(id);
      return state && FINAL.has(state.state) ? state : undefined;
    }, diagnostics);

  it("a failing shard cancels the merge instead of leaving it pending forever", async () => {
    mkdirSync(dir());
    const closed = await freePort();
    // Nothing listens there: every task exits 2 at its model-readiness check.
    const [arrayId, mergeId] = await submit(`http://127.0.0.1:${closed}/v1`, ["--model-ready-timeout", "1"]);
    expect((await finished(mergeId)).state).toBe("CANCELLED");
    const tasks = await jobStates(arrayId);
    expect(tasks).toHaveLength(3);
    for (const task of tasks) expect(task).toEqual({ state: "FAILED", exit: "2:0" });
    expect(existsSync(output())).toBe(false);
  }, 150_000);

  it("the same command again: shards as an array, the merge held on it, every pair once in the output", async () => {
    const [arrayId, mergeId] = await submit(engine.baseUrl);
    expect(await finished(mergeId), diagnostics()).toEqual({ state: "COMPLETED", exit: "0:0" });
    const tasks = await jobStates(arrayId);
    expect(tasks).toHaveLength(3);
    for (const task of tasks) expect(task).toEqual({ state: "COMPLETED", exit: "0:0" });
    expect((await run("squeue", ["-h", "-j", `${arrayId},${mergeId}`], env)).stdout.trim()).toBe("");

    const pairs = readJsonlFile(output()).map((r) => `${r._ng_task_index}/${r._ng_rollout_index}`);
    expect(pairs).toEqual([0, 1, 2, 3, 4].flatMap((t) => [`${t}/0`, `${t}/1`]));
    // One log per array task (%x-%A_%a) and one for the merge (%x-%j); the space and the quote in the
    // directory went through the #SBATCH --output line intact.
    const names = readdirSync(slurmLogs());
    expect(names.filter((f) => f.includes(`-${arrayId}_`)).sort()).toEqual([0, 1, 2].map((i) => `gym-merged-shards-${arrayId}_${i}.out`));
    expect(readFileSync(join(slurmLogs(), `gym-merged-merge-${mergeId}.out`), "utf8")).toContain("merged 3 shards: 10/10 rollouts succeeded");
  }, 150_000);

  it("an API key reaches the jobs through sbatch's environment, and no script or log holds it", async () => {
    const apiKey = `sk-${randomBytes(8).toString("hex")}`;
    const keyDir = join(root, "keyed");
    mkdirSync(keyDir);
    const input = join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl");
    const before = engine.requests.length;
    const submitted = await runGym(
      ["eval", "submit", "--shards", "2", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", apiKey, "-i", input, "-o", join(keyDir, "out.jsonl"), "--quiet", "--time", "00:05:00"],
      { env: { SLURM_CONF: env.SLURM_CONF } },
    );
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(submitted.stdout + submitted.stderr).not.toContain(apiKey);
    const mergeId = /the merge as job (\d+)/.exec(submitted.stdout)![1]!;
    const keyLogs = () => {
      const logsDir = join(keyDir, "out_slurm", "logs");
      return existsSync(logsDir) ? readdirSync(logsDir).map((f) => readFileSync(join(logsDir, f), "utf8")).join("\n") : "";
    };
    expect(await finished(mergeId), keyLogs()).toEqual({ state: "COMPLETED", exit: "0:0" });
    const calls = engine.requests.slice(before);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.headers.authorization).toBe(`Bearer ${apiKey}`);
    for (const file of ["shards.sbatch", "merge.sbatch"]) expect(readFileSync(join(keyDir, "out_slurm", file), "utf8")).not.toContain(apiKey);
    expect(keyLogs()).not.toContain(apiKey);
  }, 150_000);
});
