// NeMo Gym Python servers launched by gym, end to end: the real `gym` binary, the fake engine for the
// model, and a stand-in NeMo Gym server (test/fixtures/nemo_gym_checkout, Python standard library +
// PyYAML, written from NeMo Gym's documented contract) that boots as a NeMo Gym server does: from
// NEMO_GYM_CONFIG_DICT / NEMO_GYM_CONFIG_PATH, asking the head for the global config and exiting if
// the head does not place it where it listens. Its reward depends on the word its own tool returned,
// so a rollout that did not go through it scores 0.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { NEMO_GYM_EXAMPLES, processAlive, readJsonlFile, REPO_ROOT, runGym, startGym, waitForOutput } from "./helpers/cli.js";

const CHECKOUT = join(REPO_ROOT, "test", "fixtures", "nemo_gym_checkout");
const STANDIN = join(CHECKOUT, "resources_servers", "standin_env");
const STANDIN_CONFIG_REL = "resources_servers/standin_env/configs/standin_env.yaml";
const PYTHON = "/usr/bin/python3";
const WORD = "drizzle-from-python";

let engine: FakeEngine;
let dir: string;
let model: string[];

beforeAll(async () => {
  engine = await startFakeEngine();
  dir = mkdtempSync(join(tmpdir(), "gym-nemo-python-"));
  model = ["--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "fake-model"];
});
afterAll(async () => engine.close());

/** The pid the stand-in printed as it booted (from its log). */
function bootedPid(log: string): number {
  const match = /standin_env \S+ pid (\d+) listening on/.exec(log);
  expect(match, log).not.toBeNull();
  return Number(match![1]);
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 250));
  return !processAlive(pid);
}

function rowsFor(agent: string, source: string): string[] {
  return readFileSync(source, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.stringify({ ...JSON.parse(line), agent_ref: { type: "responses_api_agents", name: agent } }));
}

describe("NeMo Gym Python servers launched by gym", () => {
  it("gym eval run: a Python environment from the checkout beside a native one, each row scored by its own server; the Python one's log beside the output, its process gone after", async () => {
    const input = join(dir, "mixed.jsonl");
    writeFileSync(
      input,
      [...rowsFor("standin_env_simple_agent", join(STANDIN, "data", "example.jsonl")), ...rowsFor("example_single_tool_call_simple_agent", join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"))].join("\n") + "\n",
    );
    const output = join(dir, "mixed_out.jsonl");
    const result = await runGym(
      [
        "eval",
        "run",
        "--nemo-gym-root",
        CHECKOUT,
        "--nemo-gym-python",
        PYTHON,
        // A NeMo Gym repo path: Gymkit has no standin_env, so it is found in the checkout.
        "--config",
        STANDIN_CONFIG_REL,
        "--resources-server",
        "example_single_tool_call",
        ...model,
        "-i",
        input,
        "-o",
        output,
        "--quiet",
      ],
      { cwd: dir, timeoutMs: 180_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const rows = readJsonlFile(output);
    const python = rows.filter((r) => r.agent_ref.name === "standin_env_simple_agent");
    const native = rows.filter((r) => r.agent_ref.name === "example_single_tool_call_simple_agent");
    expect(python).toHaveLength(3);
    expect(native).toHaveLength(5);
    for (const row of python) {
      expect(row.verified_by).toBe("standin_env");
      expect(row.seeded).toBe(true); // the cookie of /seed_session came back with /verify
      expect(row.reward).toBe(1);
      expect(JSON.stringify(row.response.output)).toContain(WORD);
    }
    for (const row of native) {
      expect(row.verified_by).toBeUndefined();
      expect(row.reward).toBe(1);
    }
    const logPath = join(dir, "mixed_out_server_logs", "standin_env.log");
    expect(result.stderr).toContain(join(dir, "mixed_out_server_logs"));
    const log = readFileSync(logPath, "utf8");
    expect(log).toContain("the head knows it");
    expect(log.match(/POST \/verify/g)).toHaveLength(3);
    expect(log).toContain("interrupted, shutting down"); // stopped with SIGINT, as ng_run stops it
    expect(await gone(bootedPid(log))).toBe(true);
  }, 240_000);

  it("gym env start launches it (checkout inferred from where its config sits) and registers it; gym eval run uses it by url without starting one", async () => {
    const logDir = join(dir, "env_start_logs");
    const server = startGym(["env", "start", "--nemo-gym-python", PYTHON, "--config", join(STANDIN, "configs", "standin_env.yaml"), ...model, "--head-port", "0", "--log-dir", logDir], { cwd: dir });
    let stderr = "";
    server.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    try {
      const printed = await waitForOutput(server, (t) => t.includes("head server:"), 120_000);
      const headUrl = /head server: (http:\/\/\S+)/.exec(printed)![1]!;
      const instances = (await (await fetch(`${headUrl}/server_instances`)).json()) as Array<Record<string, any>>;
      const standin = instances.find((i) => (i.process_name ?? i.name) === "standin_env")!;
      expect(standin.dir_path).toBe(STANDIN);
      expect(standin.entrypoint).toBe("app.py");
      expect(typeof standin.start_time).toBe("number");
      const log = readFileSync(join(logDir, "standin_env.log"), "utf8");
      expect(standin.pid).toBe(bootedPid(log));
      expect(stderr).toContain("(standin_env) standin_env standin_env pid"); // echoed, prefixed with its name

      const output = join(dir, "by_url.jsonl");
      const run = await runGym(
        [
          "eval",
          "run",
          "--config",
          join(STANDIN, "configs", "standin_env.yaml"),
          `++standin_env.resources_servers.standin_env.url=${standin.url}`,
          ...model,
          "-i",
          join(STANDIN, "data", "example.jsonl"),
          "-o",
          output,
          "-a",
          "standin_env_simple_agent",
          "--quiet",
        ],
        { cwd: dir, timeoutMs: 120_000 },
      );
      expect(run.code, run.stderr).toBe(0);
      const rows = readJsonlFile(output);
      expect(rows).toHaveLength(3);
      for (const row of rows) expect([row.verified_by, row.reward]).toEqual(["standin_env", 1]);
      expect(existsSync(join(dir, "by_url_server_logs"))).toBe(false); // nothing was launched
      expect(readFileSync(join(logDir, "standin_env.log"), "utf8").match(/POST \/verify/g)).toHaveLength(3);

      const pid = standin.pid as number;
      server.kill("SIGINT");
      await new Promise((r) => server.once("exit", r));
      expect(await gone(pid)).toBe(true);
    } finally {
      server.kill("SIGKILL");
    }
  }, 240_000);

  it("Ctrl-C of gym eval run stops the Python server too (it runs in its own process group, which the terminal's Ctrl-C does not reach)", async () => {
    const slow = await startFakeEngine({ delayMs: 60_000 });
    const output = join(dir, "interrupted.jsonl");
    const run = startGym(
      ["eval", "run", "--nemo-gym-root", CHECKOUT, "--nemo-gym-python", PYTHON, "--config", STANDIN_CONFIG_REL, "--model-type", "openai_model", "--model-url", slow.baseUrl, "--model", "fake-model", "-i", join(STANDIN, "data", "example.jsonl"), "-o", output, "-a", "standin_env_simple_agent", "--quiet"],
      { cwd: dir },
    );
    try {
      const logPath = join(dir, "interrupted_server_logs", "standin_env.log");
      // In flight: the server has seeded a session and the model call hangs.
      for (let i = 0; i < 240 && !(existsSync(logPath) && readFileSync(logPath, "utf8").includes("POST /seed_session")); i++) await new Promise((r) => setTimeout(r, 250));
      const pid = bootedPid(readFileSync(logPath, "utf8"));
      run.kill("SIGINT");
      const code = await new Promise<number | null>((r) => run.once("exit", (c) => r(c)));
      expect(code).toBe(130);
      expect(await gone(pid)).toBe(true);
    } finally {
      run.kill("SIGKILL");
      await slow.close();
    }
  }, 180_000);

  it("a server given by url that does not answer fails the run before any rollout, naming it", async () => {
    const result = await runGym(
      ["eval", "run", "--config", join(STANDIN, "configs", "standin_env.yaml"), "++standin_env.resources_servers.standin_env.url=http://127.0.0.1:9", "--nemo-gym-ready-timeout", "2", ...model, "-i", join(STANDIN, "data", "example.jsonl"), "-o", join(dir, "dead_url.jsonl"), "-a", "standin_env_simple_agent", "--quiet"],
      { cwd: dir, timeoutMs: 120_000 },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/server "standin_env" given by url http:\/\/127\.0\.0\.1:9 did not answer GET \/ within 2 s/);
  }, 120_000);

  it("a server that exits while booting fails the run with its exit code and its last lines", async () => {
    const result = await runGym(
      ["eval", "run", "--nemo-gym-root", CHECKOUT, "--nemo-gym-python", PYTHON, "--config", STANDIN_CONFIG_REL, "~standin_env.resources_servers.standin_env.weather_word", ...model, "-i", join(STANDIN, "data", "example.jsonl"), "-o", join(dir, "crash.jsonl"), "-a", "standin_env_simple_agent", "--quiet"],
      { cwd: dir, timeoutMs: 120_000 },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("exited during start-up (exit code 3)");
    expect(result.stderr).toContain("no weather_word in my config block standin_env");
  }, 120_000);

  it("without a Python to run it: says where the venv was looked for and how to provide one", async () => {
    const result = await runGym(["env", "start", "--nemo-gym-root", CHECKOUT, "--config", STANDIN_CONFIG_REL, ...model, "--head-port", "0"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(STANDIN, ".venv"));
    expect(result.stderr).toContain("--nemo-gym-python");
  });

  it("without a checkout: names the id, says Gymkit has none, lists the built-ins and says how to run NeMo Gym's", async () => {
    // The config outside any checkout, so none can be inferred from where it sits.
    const config = join(dir, "standin_env.yaml");
    copyFileSync(join(STANDIN, "configs", "standin_env.yaml"), config);
    const result = await runGym(["env", "resolve", "--config", config, ...model], { cwd: dir, env: { NEMO_GYM_ROOT: "" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("implementation `standin_env`, which does not exist: Gymkit has no built-in of that name");
    expect(result.stderr).toContain("example_single_tool_call");
    expect(result.stderr).toContain("--nemo-gym-root");
    expect(result.stderr).toContain("--nemo-gym-python");
    expect(result.stderr).toContain("url: http://host:port");

    const byId = await runGym(["env", "resolve", "--resources-server", "standin_env", ...model], { cwd: dir, env: { NEMO_GYM_ROOT: "" } });
    expect(byId.code).toBe(2);
    expect(byId.stderr).toContain("--nemo-gym-root");
    // With the checkout, the same id is its config.
    const found = await runGym(["env", "resolve", "--resources-server", "standin_env", ...model], { cwd: dir, env: { NEMO_GYM_ROOT: CHECKOUT } });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain(`weather_word: ${WORD}`);
  });
});
