// Data safety through the built `gym` binary (real servers on 127.0.0.1, the fake engine as the
// model): no command writes over a file it reads, no earlier result is replaced without --overwrite,
// `resume_from_cache` resumes, a resume must match the run's plan, empty or too-deep input is an
// input error, and every file problem is one line with exit code 2. Each refusal also proves that
// every input file is byte-identical afterwards.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { FakeEngine } from "./doubles/fake_engine.js";
import { REPO_ROOT, runGym, type GymResult } from "./helpers/cli.js";
import { engineOf } from "./helpers/scope.js";

const EXAMPLE = join(REPO_ROOT, "src", "environments", "example_single_tool_call", "data", "example.jsonl");
const SLOW = 180_000;

let engine: FakeEngine;
let dir: string;
/** A copy of the example rows (5 tasks). */
let input: string;
/** A finished run of `input` (5 rollouts), made once. */
let finished: string;

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
const lineCount = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean).length;

/** Runs `act` and checks that none of `files` changed by a single byte. */
async function unchanged<T>(files: string[], act: () => Promise<T>): Promise<T> {
  const before = files.map(sha256);
  const result = await act();
  expect(files.map(sha256)).toEqual(before);
  return result;
}

/** Exit code 2 and one line of stderr, `gym: error: …`, containing every fragment; no stack trace. */
function expectRefused(result: GymResult, ...fragments: string[]): void {
  const lines = result.stderr.trim().split("\n");
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^gym: error: /);
  for (const fragment of fragments) expect(lines[0]).toContain(fragment);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.code).toBe(2);
}

const modelArgs = () => ["--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "--quiet"];
const evalRun = (...args: string[]) => runGym(["eval", "run", ...modelArgs(), ...args], { timeoutMs: SLOW });
const reverify = (...args: string[]) => runGym(["eval", "reverify", "--resources-server", "example_single_tool_call", "--force", "--quiet", ...args], { timeoutMs: SLOW });
const path = (name: string) => join(dir, name);

beforeAll(async () => {
  engine = await engineOf();
  dir = mkdtempSync(join(tmpdir(), "gym-safety-"));
  input = path("in.jsonl");
  copyFileSync(EXAMPLE, input);
  finished = path("finished.jsonl");
  const run = await evalRun("-i", input, "-o", finished);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  expect(lineCount(finished)).toBe(5);
}, SLOW);

describe("an output that is an input is refused, naming both", () => {
  it("eval run -i X -o X", async () => {
    const result = await unchanged([input], () => evalRun("-i", input, "-o", input));
    expectRefused(result, `the output file ${input} is the input file ${input}`);
  }, SLOW);

  it("-o is a symbolic link to the input", async () => {
    const link = path("link.jsonl");
    symlinkSync(input, link);
    const result = await unchanged([input], () => evalRun("-i", input, "-o", link));
    expectRefused(result, `the output file ${link} is the input file ${input}`, "symbolic link");
  }, SLOW);

  it("-o is a hard link to the input", async () => {
    const hard = path("hard.jsonl");
    linkSync(input, hard);
    const result = await unchanged([input], () => evalRun("-i", input, "-o", hard));
    expectRefused(result, `the output file ${hard} is the input file ${input}`, "hard link");
  }, SLOW);

  it("-o whose _materialized_inputs.jsonl sibling is the input", async () => {
    const planLike = path("y_materialized_inputs.jsonl");
    copyFileSync(EXAMPLE, planLike);
    const result = await unchanged([planLike], () => evalRun("-i", planLike, "-o", path("y.jsonl")));
    expectRefused(result, `the output's plan file ${planLike} is the input file ${planLike}`);
  }, SLOW);

  it("eval reverify --rollouts X -o X", async () => {
    const result = await unchanged([finished], () => reverify("--rollouts", finished, "-o", finished));
    expectRefused(result, `the output file ${finished} is the --rollouts file ${finished}`);
  }, SLOW);

  it("eval aggregate whose output is a shard's plan", async () => {
    const shards = path("agg");
    mkdirSync(shards);
    for (const suffix of [".jsonl", "_materialized_inputs.jsonl"]) copyFileSync(finished.replace(/\.jsonl$/, suffix), join(shards, `a-shard0${suffix}`));
    writeFileSync(join(shards, "a-shard0.jsonl.done"), "{}\n");
    const plan = join(shards, "a-shard0_materialized_inputs.jsonl");
    const result = await unchanged([join(shards, "a-shard0.jsonl"), plan], () => runGym(["eval", "aggregate", "--input-glob", join(shards, "a-shard*.jsonl"), "-o", plan]));
    expectRefused(result, `the output file ${plan} is the shard plan ${plan}`);
  });

  it("eval profile -o the rollouts file, eval export --output a link to it", async () => {
    const profile = await unchanged([finished], () => runGym(["eval", "profile", "--rollouts", finished, "-o", finished]));
    expectRefused(profile, `the profile output ${finished} is the --rollouts file ${finished}`);
    const link = path("export_link.jsonl");
    symlinkSync(finished, link);
    const exported = await unchanged([finished], () => runGym(["eval", "export", "--rollouts", finished, "--output", link]));
    expectRefused(exported, `the export output ${link} is the --rollouts file ${finished}`);
  });

  it("eval submit -i X -o X, and an input that is one of its shard outputs", async () => {
    const same = await unchanged([input], () => runGym(["eval", "submit", "--shards", "2", "--dry-run", ...modelArgs(), "-i", input, "-o", input]));
    expectRefused(same, `the output file ${input} is the input file ${input}`);
    const shardLike = path("z-shard1.jsonl");
    copyFileSync(EXAMPLE, shardLike);
    const shard = await unchanged([shardLike], () => runGym(["eval", "submit", "--shards", "2", "--dry-run", ...modelArgs(), "-i", shardLike, "-o", path("z.jsonl")]));
    expectRefused(shard, `the output file ${shardLike} is the input file ${shardLike}`);
  });
});

describe("an earlier result is replaced only with --overwrite", () => {
  it("eval run into a finished output: refused with its line count; --overwrite replaces it", async () => {
    const output = path("rerun.jsonl");
    // The earlier run: the finished run's files under this output's name (what `eval run -o` wrote there).
    for (const name of readdirSync(dir).filter((f) => f.startsWith("finished"))) copyFileSync(path(name), path(name.replace(/^finished/, "rerun")));
    const refused = await unchanged([input, output], () => evalRun("-i", input, "-o", output));
    expectRefused(refused, `${output} already holds 5 lines from an earlier run`, "--resume", "--overwrite");
    const replaced = await evalRun("-i", input, "-o", output, "--limit", "2", "--overwrite");
    expect(replaced.code).toBe(0);
    expect(lineCount(output)).toBe(2);
  }, SLOW);

  it("a failures file alone is an earlier result too", async () => {
    const output = path("failed_before.jsonl");
    writeFileSync(path("failed_before_failures.jsonl"), '{"_ng_task_index":0,"_ng_rollout_index":0}\n');
    const result = await evalRun("-i", input, "-o", output);
    expectRefused(result, `${path("failed_before_failures.jsonl")} already holds 1 line from an earlier run`);
  }, SLOW);

  it("eval reverify, aggregate, profile and export refuse to replace their earlier output", async () => {
    const rv = path("rv.jsonl");
    expect((await reverify("--rollouts", finished, "-o", rv)).code).toBe(0);
    expectRefused(await unchanged([rv], () => reverify("--rollouts", finished, "-o", rv)), `${rv} already holds 5 lines`, "--resume", "--overwrite");
    expect((await reverify("--rollouts", finished, "-o", rv, "--overwrite")).code).toBe(0);

    const merged = path("agg/merged.jsonl");
    const glob = join(dir, "agg", "a-shard*.jsonl");
    expect((await runGym(["eval", "aggregate", "--input-glob", glob, "-o", merged])).code).toBe(0);
    expectRefused(await unchanged([merged], () => runGym(["eval", "aggregate", "--input-glob", glob, "-o", merged])), `${merged} already holds 5 lines`, "--overwrite");
    expect((await runGym(["eval", "aggregate", "--input-glob", glob, "-o", merged, "--overwrite"])).code).toBe(0);

    const profile = path("profile.jsonl");
    expect((await runGym(["eval", "profile", "--rollouts", finished, "-o", profile])).code).toBe(0);
    expectRefused(await unchanged([profile], () => runGym(["eval", "profile", "--rollouts", finished, "-o", profile])), `${profile} already holds 5 lines`, "--overwrite");
    expect((await runGym(["eval", "profile", "--rollouts", finished, "-o", profile, "--overwrite"])).code).toBe(0);

    const tokens = path("tokens.jsonl");
    writeFileSync(tokens, "{}\n");
    expectRefused(await unchanged([tokens], () => runGym(["eval", "export", "--rollouts", finished, "--output", tokens])), `${tokens} already holds 1 line`, "--overwrite");
  }, SLOW);

  it("eval submit refuses a finished merged output, and --overwrite is for the merge job only", async () => {
    const output = path("sub/merged.jsonl");
    mkdirSync(path("sub"));
    writeFileSync(output, "{}\n{}\n");
    expectRefused(await runGym(["eval", "submit", "--shards", "2", "--dry-run", ...modelArgs(), "-i", input, "-o", output]), `${output} already holds 2 lines`);
    const allowed = await runGym(["eval", "submit", "--shards", "2", "--dry-run", ...modelArgs(), "-i", input, "-o", output, "--overwrite"]);
    expect(allowed.code).toBe(0);
    const array = readFileSync(path("sub/merged_slurm/shards.sbatch"), "utf8");
    expect(array).toContain("--resume");
    expect(array).not.toContain("--overwrite");
    expect(readFileSync(path("sub/merged_slurm/merge.sbatch"), "utf8")).toContain("--overwrite");
  });

  it("--resume and --overwrite together contradict each other", async () => {
    expectRefused(await evalRun("-i", input, "-o", path("both.jsonl"), "--resume", "--overwrite"), "--resume (resume_from_cache) and --overwrite contradict each other");
  }, SLOW);
});

describe("resume_from_cache is --resume", () => {
  /** A run cut short: the first 3 of 5 results, with the run's plan and fingerprint. */
  function interrupted(name: string): string {
    const output = path(`${name}.jsonl`);
    for (const suffix of ["_materialized_inputs.jsonl", "_plan_fingerprint.json"]) copyFileSync(finished.replace(/\.jsonl$/, suffix), output.replace(/\.jsonl$/, suffix));
    writeFileSync(output, readFileSync(finished, "utf8").split("\n").slice(0, 3).join("\n") + "\n");
    return output;
  }

  for (const [how, args] of [
    ["++resume_from_cache=true", ["++resume_from_cache=true"]],
    ["+resume_from_cache=true", ["+resume_from_cache=true"]],
    ["resume_from_cache: true in a config file", ["--config", "CONFIG"]],
  ] as const) {
    it(how, async () => {
      const output = interrupted(`rfc_${args[0].replace(/\W/g, "")}`);
      const kept = readFileSync(output, "utf8");
      const calls = engine.requests.length;
      const config = path("resume.yaml");
      writeFileSync(config, "resume_from_cache: true\n");
      const result = await unchanged([input], () => evalRun("-i", input, "-o", output, ...args.map((a) => (a === "CONFIG" ? config : a))));
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("5/5 rollouts succeeded");
      // The three kept results are still the first three lines: only the missing two ran.
      expect(readFileSync(output, "utf8").startsWith(kept)).toBe(true);
      expect(lineCount(output)).toBe(5);
      expect(engine.requests.length).toBeGreaterThan(calls);
    }, SLOW);
  }
});

describe("--resume must continue the same plan", () => {
  it("refuses more repeats than planned without --extend, pointing at it", async () => {
    const before = sha256(finished);
    const result = await evalRun("-i", input, "-o", finished, "--resume", "--num-repeats", "3");
    expectRefused(result, "num_repeats: 1 → 3", "Add --extend to grow the finished run");
    expect(sha256(finished)).toBe(before);
  }, SLOW);

  it("refuses another input, naming old and new", async () => {
    const other = path("other.jsonl");
    writeFileSync(other, readFileSync(input, "utf8").split("\n").slice(0, 2).join("\n") + "\n");
    const result = await unchanged([finished, other], () => evalRun("-i", other, "-o", finished, "--resume"));
    expectRefused(result, "that run was planned differently", `input: ${input}`, `→ ${other}`);
  }, SLOW);

  it("refuses a changed --limit and sampling override, listing each", async () => {
    const result = await unchanged([finished], () => evalRun("-i", input, "-o", finished, "--resume", "--limit", "2", "--temperature", "0.5"));
    expectRefused(result, "limit: (not set) → 2", 'responses_create_params: (not set) → {"temperature":0.5}');
  }, SLOW);

  it("refuses a reverify output resumed by eval run", async () => {
    const result = await evalRun("-i", input, "-o", path("rv.jsonl"), "--resume");
    expectRefused(result, "command: eval reverify → eval run");
  }, SLOW);

  it("a run made before fingerprints resumes, with a notice", async () => {
    const output = path("old_run.jsonl");
    for (const suffix of [".jsonl", "_materialized_inputs.jsonl"]) copyFileSync(finished.replace(/\.jsonl$/, suffix), output.replace(/\.jsonl$/, suffix));
    const result = await evalRun("-i", input, "-o", output, "--resume");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("old_run_plan_fingerprint.json does not exist");
    expect(result.stderr).toContain("resuming without checking");
  }, SLOW);
});

describe("input with nothing to run, or too deep to handle", () => {
  it("an input with no non-blank lines is an error, not a 0-rollout success", async () => {
    const empty = path("empty.jsonl");
    writeFileSync(empty, "\n  \n\n");
    const output = path("empty_out.jsonl");
    const result = await unchanged([empty], () => evalRun("-i", empty, "-o", output));
    expectRefused(result, `${empty} has no rows (no non-blank lines): there is nothing to run`);
    expect(existsSync(output)).toBe(false);
  }, SLOW);

  it("a shard that gets no task is an error naming the shard", async () => {
    const result = await evalRun("-i", input, "-o", path("shard_out.jsonl"), "--shard", "6/8");
    expectRefused(result, "shard 6/8 gets no tasks: the input has 5 tasks", "use at most 5 shards");
  }, SLOW);

  it("eval submit refuses more shards than tasks before submitting (each empty shard would fail its array task)", async () => {
    const result = await runGym(["eval", "submit", "--shards", "8", "--dry-run", ...modelArgs(), "-i", input, "-o", path("wide/out.jsonl")]);
    expectRefused(result, "--shards 8: 3 shard(s) would get no task (5, 6, 7; the input has 5 tasks)");
    expect(existsSync(path("wide"))).toBe(false);
  });

  it("an empty --rollouts file for reverify", async () => {
    const empty = path("empty_rollouts.jsonl");
    writeFileSync(empty, "");
    expectRefused(await reverify("--rollouts", empty, "-o", path("empty_rv.jsonl")), `${empty} has no rollouts`);
  }, SLOW);

  it("JSON nested 5,000 levels deep names file:line, exits 2 and leaves no .partial plan", async () => {
    const deep = path("deep.jsonl");
    const row = readFileSync(input, "utf8").split("\n")[0]!;
    writeFileSync(deep, `${row}\n{"responses_create_params": {"input": "x", "metadata": ${"[".repeat(5000)}${"]".repeat(5000)}}}\n`);
    const output = path("deep_out.jsonl");
    const result = await unchanged([deep], () => evalRun("-i", deep, "-o", output));
    expectRefused(result, `${deep}:2: JSON nested more than 512 levels deep`);
    expect(readdirSync(dir).filter((f) => f.startsWith("deep_out"))).toEqual([]);
  }, SLOW);
});

describe("file errors: one line naming the path and the problem, exit 2", () => {
  it("a missing input", async () => {
    expectRefused(await evalRun("-i", path("nope.jsonl"), "-o", path("x.jsonl")), `cannot read ${path("nope.jsonl")}: no such file or folder`);
  }, SLOW);

  it("a folder as the input, and as the output", async () => {
    expectRefused(await evalRun("-i", dir, "-o", path("x.jsonl")), `cannot read ${dir}: it is a folder, not a file`);
    mkdirSync(path("folder.jsonl"));
    expectRefused(await evalRun("-i", input, "-o", path("folder.jsonl")), `cannot write ${path("folder.jsonl")}: it is a folder, not a regular file`);
  }, SLOW);

  it("an output path through a regular file (ENOTDIR)", async () => {
    const through = join(finished, "x.jsonl");
    expectRefused(await unchanged([finished], () => evalRun("-i", input, "-o", through)), `cannot write ${through}: ${finished}/ is a regular file, not a folder`);
    expectRefused(await runGym(["eval", "export", "--rollouts", finished, "--output", through]), `cannot write ${through}: ${finished}/ is a regular file, not a folder`);
  }, SLOW);

  it("/proc: reading /proc/self/mem, writing /proc/version, creating under /proc", async () => {
    expectRefused(await evalRun("-i", "/proc/self/mem", "-o", path("x.jsonl")), "cannot read /proc/self/mem: input/output error");
    expectRefused(await evalRun("-i", input, "-o", "/proc/version"), "cannot write /proc/version: it is inside /proc");
    expectRefused(await runGym(["eval", "profile", "--rollouts", finished, "-o", "/proc/gym/profile.jsonl"]), "cannot write /proc/gym/profile.jsonl: it is inside /proc");
  }, SLOW);

  it("a FIFO as the input and a device as the output (refused, never opened)", async () => {
    const fifo = path("fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    expectRefused(await evalRun("-i", fifo, "-o", path("x.jsonl")), `cannot read ${fifo}: it is a FIFO (named pipe), not a regular file`);
    expectRefused(await evalRun("-i", input, "-o", "/dev/null"), "cannot write /dev/null: it is a device, not a regular file");
    expectRefused(await runGym(["sandbox", "exec", fifo]), `cannot read the program ${fifo}: it is a FIFO`);
  }, SLOW);

  it.skipIf(process.getuid?.() === 0)("an unwritable output folder (skipped as root: root writes through permission bits)", async () => {
    const locked = path("locked");
    mkdirSync(locked, { mode: 0o500 });
    expectRefused(await evalRun("-i", input, "-o", join(locked, "x.jsonl")), `cannot write ${join(locked, "x.jsonl")}: permission denied`);
  }, SLOW);

  it("eval submit --dir through a regular file, or under /proc (where a recursive mkdir would never return)", async () => {
    const submit = (dirArg: string) => runGym(["eval", "submit", "--shards", "2", "--dry-run", ...modelArgs(), "-i", input, "-o", path("sd/out.jsonl"), "--dir", dirArg]);
    expectRefused(await submit(join(finished, "slurm")), `cannot write --dir ${join(finished, "slurm")}: ${finished}/ is a regular file, not a folder`);
    expectRefused(await submit("/proc/gym_slurm"), "cannot write --dir /proc/gym_slurm: it is inside /proc");
  }, SLOW);

  it("--config files: missing, a folder, /proc/self/mem", async () => {
    expectRefused(await evalRun("-i", input, "-o", path("x.jsonl"), "--config", path("nope.yaml")), "nope.yaml", "does not exist");
    expectRefused(await evalRun("-i", input, "-o", path("x.jsonl"), "--config", dir), `Could not read config file ${dir}: it is a folder`);
    expectRefused(await evalRun("-i", input, "-o", path("x.jsonl"), "--config", "/proc/self/mem"), "Could not read config file /proc/self/mem: input/output error");
  }, SLOW);

  it("--rollouts of reverify, profile, export and view; --input-glob; sandbox exec FILE", async () => {
    const nope = path("nope.jsonl");
    expectRefused(await reverify("--rollouts", nope, "-o", path("x.jsonl")), `cannot read ${nope}: no such file`);
    expectRefused(await runGym(["eval", "profile", "--rollouts", nope]), `cannot read ${nope}: no such file`);
    expectRefused(await runGym(["eval", "export", "--rollouts", dir, "--output", path("t.jsonl")]), `cannot read ${dir}: it is a folder`);
    // A folder is a directory of runs to compare for `view`: one without runs is refused, naming it.
    const noRuns = path("no_runs");
    mkdirSync(noRuns, { recursive: true });
    expectRefused(await runGym(["view", "--rollouts", noRuns]), `--rollouts ${noRuns}: the directory holds no rollouts file`);
    expectRefused(await runGym(["eval", "aggregate", "--input-glob", join(finished, "a*.jsonl"), "-o", path("m.jsonl")]), `${finished}/ is a regular file, not a folder`);
    expectRefused(await runGym(["sandbox", "exec", path("nope.py")]), `cannot read the program ${path("nope.py")}: no such file`);
    expectRefused(await runGym(["sandbox", "exec", "/proc/self/mem"]), "cannot read the program /proc/self/mem: input/output error");
    expectRefused(await runGym(["sandbox", "exec", input, "--stdin", dir]), `cannot read --stdin ${dir}: it is a folder`);
  }, SLOW);

  it("nothing was left behind by the refusals above: no .partial file anywhere", () => {
    const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [e.name]));
    expect(walk(dir).filter((f) => f.endsWith(".partial"))).toEqual([]);
    rmSync(path("fifo.jsonl"), { force: true });
  });
});
