// A password in `--model-url` (`http://user:KEY@host/v1`), key-like query values and the API key
// never show: not in `gym env resolve`, the head's config dump, `gym env status --json`, error
// messages, nor a temp file left by `--process-per-server` after `kill -9`. The engine still gets
// the credentials (Basic auth from the URL's userinfo).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactSecrets } from "../src/config/index.js";
import { call, NO_RETRY } from "../src/http/client.js";
import { redactUrl, redactUrlsIn, urlCredentials } from "../src/config/url_secrets.js";
import { listen } from "../src/http/server.js";
import routingProxy from "../src/models/routing_proxy.js";
import { decodeGlobalConfigText } from "../src/orchestrate/nemo_gym_config.js";
import { freePort } from "../src/orchestrate/start.js";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { GYM, REPO_ROOT, headUrlIn, readJsonlFile, runGym, startGym, stopChild, waitForOutput } from "./helpers/cli.js";

const KEY = `pw-${randomBytes(8).toString("hex")}`;
const API_KEY = `sk-${randomBytes(8).toString("hex")}`;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("redactUrl", () => {
  it("hides the userinfo password and key-like query values, and nothing else", () => {
    expect(redactUrl(`http://user:${KEY}@host:8000/v1`)).toBe("http://user:***@host:8000/v1");
    expect(redactUrl(`https://${KEY}@host/v1`)).toBe("https://***@host/v1");
    // A password holding `@` is split where URL parsers split it: at the last one.
    expect(redactUrl(`http://u:a@b${KEY}@host/v1`)).toBe("http://u:***@host/v1");
    expect(redactUrl(`http://host/v1?api_key=${KEY}&model=m&token=${KEY}&key=${KEY}&sig=${KEY}#frag`)).toBe(
      "http://host/v1?api_key=***&model=m&token=***&key=***&sig=***#frag",
    );
    expect(redactUrl(`http://host/v1?accessToken=${KEY}&X-Amz-Signature=${KEY}&max_tokens=5`)).toBe("http://host/v1?accessToken=***&X-Amz-Signature=***&max_tokens=5");
    for (const plain of ["http://127.0.0.1:8000/v1", "http://host/v1?model=m&keyword=k", "not a url", "mailto:me@example.com"]) {
      expect(redactUrl(plain)).toBe(plain);
    }
  });

  it("finds URLs inside messages", () => {
    expect(redactUrlsIn(`could not reach http://user:${KEY}@127.0.0.1:1/v1/models: ECONNREFUSED; "https://h/?token=${KEY}"`)).toBe(
      'could not reach http://user:***@127.0.0.1:1/v1/models: ECONNREFUSED; "https://h/?token=***"',
    );
  });

  it("turns userinfo into Basic auth and a URL without it", () => {
    expect(urlCredentials(`http://us%40er:p%3Ass@host:1/v1/x?y=1`)).toEqual({ url: "http://host:1/v1/x?y=1", authorization: basic("us@er", "p:ss") });
    expect(urlCredentials("http://host/v1")).toEqual({ url: "http://host/v1" });
  });

  it("is applied to every URL-holding string of a printed config", () => {
    const config = { policy_base_url: `http://user:${KEY}@h/v1`, judge: { urls: [`http://h/?api_key=${KEY}`] }, policy_api_key: API_KEY };
    expect(redactSecrets(config)).toEqual({ policy_base_url: "http://user:***@h/v1", judge: { urls: ["http://h/?api_key=***"] }, policy_api_key: "***" });
  });
});

describe("the HTTP client", () => {
  let engine: FakeEngine;
  beforeAll(async () => {
    engine = await startFakeEngine();
  });
  afterAll(async () => engine.close());

  it("sends userinfo as Basic auth, over a caller's bearer header, and leaves the URL clean", async () => {
    const withCredentials = engine.baseUrl.replace("http://", `http://user:${KEY}@`);
    const result = await call(`${withCredentials}/chat/completions`, { body: { model: "m", messages: [{ role: "user", content: "hi" }] }, headers: { Authorization: "Bearer dummy" }, retry: NO_RETRY });
    expect(result.status).toBe(200);
    const seen = engine.requests.at(-1)!;
    expect(seen.headers.authorization).toBe(basic("user", KEY));
    expect(seen.path).toBe("/v1/chat/completions");
  });

  it("never names the password in a CallError", async () => {
    const port = await freePort();
    const error = await call(`http://user:${KEY}@127.0.0.1:${port}/v1/models`, { retry: NO_RETRY }).catch((e: Error & { url: string }) => e);
    expect(error).toBeInstanceOf(Error);
    const { message, url } = error as Error & { url: string };
    expect(message).toContain(`http://user:***@127.0.0.1:${port}/v1/models`);
    expect(`${message} ${url}`).not.toContain(KEY);
  });
});

describe("routing_proxy", () => {
  it("lists a route's base URL without its password, and forwards with its credentials", async () => {
    const engine = await startFakeEngine();
    const app = await routingProxy.build({
      name: "proxy",
      config: routingProxy.configSchema.parse({ routes: { policy: { base_url: engine.baseUrl.replace("http://", `http://user:${KEY}@`), model: "m" } } }),
      urlOf: () => "",
    });
    try {
      const url = await listen(app);
      const routes = await (await fetch(`${url}/routes`)).text();
      expect(routes).toContain(engine.baseUrl.replace("http://", "http://user:***@"));
      expect(routes).not.toContain(KEY);
      const replicas = await (await fetch(`${url}/replicas`)).text();
      expect(replicas).not.toContain(KEY);
      const reply = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "policy", messages: [{ role: "user", content: "hi" }] }) });
      expect(reply.status).toBe(200);
      expect(engine.requests.at(-1)!.headers.authorization).toBe(basic("user", KEY));
    } finally {
      await app.close();
      await engine.close();
    }
  });
});

const ROW = {
  responses_create_params: {
    input: [{ role: "user", content: "what's it like in sf?" }],
    tools: [{ type: "function", name: "get_weather", description: "", strict: true, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false } }],
  },
};
const MODEL_ARGS = (modelUrl: string) => ["--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", modelUrl, "--model", "m", "--model-api-key", API_KEY];

/** Every file under `dir` whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesContaining(path, needle));
    else if (entry.isFile() && readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

describe("gym never shows the model URL's password or the API key", () => {
  let engine: FakeEngine;
  let dir: string;
  let input: string;
  let secretUrl: string;
  beforeAll(async () => {
    engine = await startFakeEngine();
    dir = mkdtempSync(join(tmpdir(), "gym-secrets-"));
    input = join(dir, "in.jsonl");
    writeFileSync(input, `${JSON.stringify(ROW)}\n`);
    secretUrl = engine.baseUrl.replace("http://", `http://user:${KEY}@`);
  });
  afterAll(async () => engine.close());

  it("env resolve", async () => {
    const result = await runGym(["env", "resolve", ...MODEL_ARGS(`${secretUrl}?api_key=${KEY}`)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`policy_base_url: ${engine.baseUrl.replace("http://", "http://user:***@")}?api_key=***`);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(result.stdout + result.stderr).not.toContain(API_KEY);
  });

  it("an unreachable engine's error names the URL without its password", async () => {
    const port = await freePort();
    const result = await runGym(["eval", "run", ...MODEL_ARGS(`http://user:${KEY}@127.0.0.1:${port}/v1`), "-i", input, "-o", join(dir, "unreachable.jsonl"), "--model-ready-timeout", "1", "--quiet"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`http://user:***@127.0.0.1:${port}/v1`);
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it("eval run: a whole run authenticates, and nothing it prints or writes holds a secret", async () => {
    const runDir = join(dir, "run");
    mkdirSync(runDir);
    const before = engine.requests.length;
    const result = await runGym(["eval", "run", ...MODEL_ARGS(secretUrl), "-i", input, "-o", join(runDir, "out.jsonl")]);
    expect(result.code, result.stderr).toBe(0);
    expect(readJsonlFile(join(runDir, "out.jsonl"))).toHaveLength(1);
    const calls = engine.requests.slice(before);
    expect(calls.length).toBeGreaterThan(0);
    for (const request of calls) expect(request.headers.authorization).toBe(basic("user", KEY));
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(result.stdout + result.stderr).not.toContain(API_KEY);
    expect(readdirSync(runDir).length).toBeGreaterThan(1); // the rollouts and their metrics files
    expect(filesContaining(runDir, KEY)).toEqual([]);
    expect(filesContaining(runDir, API_KEY)).toEqual([]);
  }, 60_000);

  it("a model server's engine error names the engine URL without its password", async () => {
    const refusing = await startFakeEngine({ respond: (path) => (path.endsWith("/chat/completions") ? { status: 400, body: { error: { message: "bad request from the engine" } } } : undefined) });
    try {
      const runDir = join(dir, "refused");
      mkdirSync(runDir);
      const url = refusing.baseUrl.replace("http://", `http://user:${KEY}@`);
      const result = await runGym(["eval", "run", ...MODEL_ARGS(url), "-i", input, "-o", join(runDir, "out.jsonl"), "--quiet"]);
      const failures = readJsonlFile(join(runDir, "out_failures.jsonl"));
      expect(failures.length, `${result.stdout}\n${result.stderr}`).toBe(1);
      const failure = JSON.stringify(failures[0]);
      expect(failure).toContain("bad request from the engine");
      expect(failure).toContain(`engine POST ${refusing.baseUrl.replace("http://", "http://user:***@")}/chat/completions answered 400`);
      expect(result.stdout + result.stderr).not.toContain(KEY);
      expect(filesContaining(runDir, KEY)).toEqual([]);
    } finally {
      await refusing.close();
    }
  }, 60_000);

  for (const layout of ["one process", "process per server"]) {
    it(`env start (${layout}): head config dump, status --json, a rollout that authenticates, output files`, async () => {
      // Port 0: the head takes a port of its own choosing, so no other test can take it first.
      const args = ["env", "start", ...MODEL_ARGS(secretUrl), "--head-port", "0"];
      if (layout === "process per server") args.push("--process-per-server");
      const server = startGym(args);
      let printed = "";
      server.stdout!.on("data", (d: Buffer) => (printed += d.toString()));
      server.stderr!.on("data", (d: Buffer) => (printed += d.toString()));
      try {
        const headUrl = headUrlIn(await waitForOutput(server, (t) => t.includes("head server:")));
        const dump = decodeGlobalConfigText(await (await fetch(`${headUrl}/global_config_dict_yaml`)).text());
        expect(dump).toContain("user:***@127.0.0.1");
        expect(dump).not.toContain(KEY);
        const status = await runGym(["env", "status", "--head-url", headUrl, "--json"]);
        expect(status.code).toBe(0);
        const instances = JSON.parse(status.stdout) as Array<{ replicas?: Array<{ url: string }> }>;
        expect(instances.flatMap((i) => i.replicas ?? []).map((r) => r.url)).toEqual([engine.baseUrl.replace("http://", "http://user:***@")]);

        const output = join(dir, `rollouts_${layout.replaceAll(" ", "_")}.jsonl`);
        const before = engine.requests.length;
        const run = await runGym(["eval", "run", "--no-serve", "--head-url", headUrl, "--agent", "example_single_tool_call_simple_agent", "-i", input, "-o", output, "--quiet"]);
        expect(run.code, run.stderr).toBe(0);
        expect(readJsonlFile(output)).toHaveLength(1);
        const calls = engine.requests.slice(before);
        expect(calls.length).toBeGreaterThan(0);
        for (const request of calls) expect(request.headers.authorization).toBe(basic("user", KEY));

        for (const text of [dump, status.stdout, status.stderr, run.stdout, run.stderr, printed]) {
          expect(text).not.toContain(KEY);
          expect(text).not.toContain(API_KEY);
        }
        // The rollouts and whatever else the run wrote beside them.
        expect(filesContaining(dir, KEY)).toEqual([]);
        expect(filesContaining(dir, API_KEY)).toEqual([]);
      } finally {
        await stopChild(server);
      }
    }, 90_000);
  }

  it("--process-per-server leaves nothing holding the key in the temp dir after kill -9 of the whole group", async () => {
    // The children's temp dir is a fresh one, so anything they write there is found.
    const temp = join(dir, "tmp");
    mkdirSync(temp);
    const group = spawn(process.execPath, [GYM, "env", "start", ...MODEL_ARGS(secretUrl), "--head-port", "0", "--process-per-server"], {
      cwd: REPO_ROOT,
      env: { ...process.env, TMPDIR: temp },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const exited = new Promise((resolve) => group.once("exit", resolve));
    try {
      const headUrl = headUrlIn(await waitForOutput(group, (t) => t.includes("head server:")));
      // Up and serving: whatever hand-off there was has happened.
      expect((await fetch(`${headUrl}/server_instances`)).status).toBe(200);
    } finally {
      try {
        process.kill(-group.pid!, "SIGKILL");
      } catch {
        // The whole group is gone already (a failed start): the exit was seen by `exited`.
      }
    }
    await exited;
    expect(filesContaining(temp, KEY)).toEqual([]);
    expect(filesContaining(temp, API_KEY)).toEqual([]);
    // The check can see files: a file written there is found (the directory was not just unreadable).
    writeFileSync(join(temp, "probe"), KEY);
    expect(filesContaining(temp, KEY)).toEqual([join(temp, "probe")]);
    expect(statSync(temp).isDirectory()).toBe(true);
  }, 60_000);
});
