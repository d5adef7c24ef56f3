// gymkit for Python (python/) against a real `gym serve`: the package installs with pip and no
// package index, and its unittest suite (python/tests) runs against the service — complete batches
// (raw and format "tokens", the token rows checked field by field against flattenRollout of the raw
// rollouts), a failing agent, non-contiguous token paths, a malformed request, and the service
// killed mid-stream; then the trainer adapters (python/tests/test_adapters.py: verl and NeMo RL, with
// stand-ins for the trainers' own classes) checked field by field against the service's token export.
// The model is the fake token engine (real Qwen3 token ids); everything else is real.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flattenRollout } from "../src/tokens/export.js";
import { startFakeTokenEngine, type RawPolicy } from "./doubles/fake_token_engine.js";
import { GYM, NEMO_GYM_EXAMPLES, REPO_ROOT, startGym, waitForOutput } from "./helpers/cli.js";
import { onTeardown } from "./helpers/scope.js";

const PYTHON_DIR = join(REPO_ROOT, "python");

function works(args: string[]): boolean {
  try {
    execFileSync("python3", args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const python = works(["-c", "import sys; assert sys.version_info >= (3, 8)"]);
const pip = python && works(["-m", "pip", "--version"]);

/** Runs python3 and resolves with its exit code and output. */
function runPython(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; out: string }> {
  const child = spawn("python3", args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out })));
}

/** example_single_tool_call rows, each with a distinct question carrying `marker`. */
function rows(marker: string, count: number): Array<Record<string, any>> {
  const lines = readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").trim().split("\n");
  return Array.from({ length: count }, (_, i) => {
    const row = JSON.parse(lines[i % lines.length]!);
    const user = row.responses_create_params.input.find((m: { role: string }) => m.role === "user");
    user.content = `${user.content} (${marker} question ${i})`;
    return row;
  });
}

// A Qwen3-style policy: one get_weather call, then an answer. CLEAN rows write the call as the chat
// template renders it (so the re-rendered prompt continues the sampled ids); MESSY rows write compact
// JSON, which the template re-renders with spaces (not contiguous); FAIL rows make the engine fail.
const policy: RawPolicy = ({ promptText }) => {
  const question = /\((\w+) question \d+\)/.exec(promptText)?.[1];
  if (question === "FAIL") throw new Error("the engine cannot serve this prompt");
  if (promptText.includes("<tool_response>")) return { text: "It is sunny in San Francisco." };
  const args = question === "MESSY" ? '{"city":"San Francisco"}' : '{"city": "San Francisco"}';
  return { text: `<tool_call>\n{"name": "get_weather", "arguments": ${args}}\n</tool_call>` };
};

describe.skipIf(!python)("gymkit for Python (needs python3)", () => {
  it.skipIf(!pip)("installs with `pip install --no-index` and imports with only the standard library", async () => {
    const target = mkdtempSync(join(tmpdir(), "gymkit-pip-"));
    onTeardown(async () => rmSync(target, { recursive: true, force: true }));
    const install = await runPython(["-m", "pip", "install", "--disable-pip-version-check", "--no-index", "--no-cache-dir", "--target", target, PYTHON_DIR], { cwd: target });
    expect(install.code, install.out).toBe(0);
    expect(existsSync(join(target, "gymkit", "client.py"))).toBe(true);
    // -S: no site-packages, so only the standard library and the installed copy can be imported.
    const imported = await runPython(["-S", "-c", "import gymkit, gymkit.adapters.verl, gymkit.adapters.nemo_rl, gymkit.adapters.verl_dataset; print(gymkit.__version__, gymkit.__file__)"], {
      cwd: target,
      env: { PYTHONPATH: target },
    });
    expect(imported.code, imported.out).toBe(0);
    expect(imported.out.trim()).toBe(`0.1.0 ${join(target, "gymkit", "__init__.py")}`);
  }, 180_000);

  it("passes its unittest suite against gym serve: complete, failing agent, malformed request, service killed mid-stream", async () => {
    const engine = await startFakeTokenEngine({
      policy,
      returnPromptTokenIds: true,
      // SLOW rows' model calls are held until the test has killed the service.
      delayMs: (path, body) => (path === "/v1/chat/completions" && JSON.stringify(body.messages).includes("SLOW question") ? 600_000 : 0),
    });
    onTeardown(() => engine.close());
    const serveConfig = [
      "--resources-server",
      "example_single_tool_call",
      "--model-type",
      "vllm_model",
      "++policy_model.responses_api_models.vllm_model.return_token_id_information=true",
      "++policy_model.responses_api_models.vllm_model.retry_backoff_s=0.01",
    ];
    const child = startGym(["serve", "--port", "0", ...serveConfig, "--model-url", engine.baseUrl, "--model", "Qwen/Qwen3-0.6B"]);
    onTeardown(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await new Promise((r) => child.once("exit", r));
      }
    });
    const stdout = await waitForOutput(child, (t) => t.includes("rollout service:"), 60_000);
    const serviceUrl = /rollout service: (http:\/\/\S+)\/v1\/rollouts/.exec(stdout)![1]!;

    const dir = mkdtempSync(join(tmpdir(), "gymkit-python-"));
    onTeardown(async () => rmSync(dir, { recursive: true, force: true }));
    const rowsFile = join(dir, "rows.json");
    writeFileSync(rowsFile, JSON.stringify({ clean: rows("CLEAN", 4), messy: rows("MESSY", 2), fail: rows("FAIL", 2), slow: rows("SLOW", 3) }));
    const env = { PYTHONPATH: PYTHON_DIR, PYTHONDONTWRITEBYTECODE: "1", GYMKIT_SERVICE_URL: serviceUrl, GYMKIT_TEST_ROWS: rowsFile, GYMKIT_TEST_OUT: dir };

    const suite = await runPython(["-m", "unittest", "-v", "tests.test_service"], { cwd: PYTHON_DIR, env });
    expect(suite.code, suite.out).toBe(0);
    expect(suite.out).toMatch(/Ran 10 tests/);
    expect(suite.out).not.toMatch(/skipped/);

    // The token rows are what Gymkit's own export makes of the raw rollouts of the same rows.
    const raw = JSON.parse(readFileSync(join(dir, "raw.json"), "utf8")) as Array<Record<string, any>>;
    const tokens = JSON.parse(readFileSync(join(dir, "tokens.json"), "utf8")) as Array<Record<string, any>>;
    expect(tokens).toHaveLength(raw.length);
    for (const [i, rollout] of raw.entries()) {
      const expected = flattenRollout(rollout);
      for (const field of Object.keys(expected) as Array<keyof typeof expected>) expect(tokens[i]![field], `${field} of pair ${i}`).toEqual(expected[field]);
      expect(expected.response_ids.length).toBeGreaterThan(0);
    }

    // The trainer adapters (verl, NeMo RL) on the same service; the verl manager starts its own
    // gym serve pointed at the engine, as it would at verl's rollout servers.
    const adapters = await runPython(["-m", "unittest", "-v", "tests.test_adapters"], {
      cwd: PYTHON_DIR,
      env: {
        ...env,
        GYMKIT_GYM_COMMAND: JSON.stringify([process.execPath, GYM]),
        GYMKIT_SERVE_ARGS: JSON.stringify(serveConfig),
        GYMKIT_ENGINE_ADDRESS: new URL(engine.baseUrl).host,
      },
    });
    expect(adapters.code, adapters.out).toBe(0);
    expect(adapters.out).toMatch(/Ran 19 tests/);
    expect(adapters.out).not.toMatch(/skipped/);

    const exited = new Promise((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    const killed = await runPython(["-m", "unittest", "-v", "tests.test_killed"], { cwd: PYTHON_DIR, env: { ...env, GYMKIT_SERVE_PID: String(child.pid) } });
    expect(killed.code, killed.out).toBe(0);
    expect(killed.out).toMatch(/Ran 1 test\b/);
    expect(killed.out).not.toMatch(/skipped/);
    expect(await exited).toBe("SIGKILL");
  }, 180_000);
});
