// The /execute service (NeMo-Skills' sandbox API) over real HTTP, its ipython sessions, and the
// `gym sandbox exec` / `gym sandbox serve` commands run as a user would.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "../src/http/server.js";
import { Sandbox } from "../src/sandbox/runner.js";
import { buildSandboxService } from "../src/sandbox/service.js";
import type { SessionManager } from "../src/sandbox/sessions.js";
import { processesOfUid } from "../src/sandbox/uids.js";
import { runGym, startGym, stopChild, waitForOutput } from "./helpers/cli.js";

let sandbox: Sandbox;
let app: FastifyInstance;
let sessions: SessionManager;
let url: string;

beforeAll(async () => {
  sandbox = await Sandbox.create({ concurrency: 2, maxSessions: 2 });
  ({ app, sessions } = await buildSandboxService({ sandbox }));
  url = await listen(app);
});
afterAll(async () => {
  await app?.close();
  await sandbox?.close();
});

async function post(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${url}/execute`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

describe("POST /execute", () => {
  it("runs python with stdin and answers in NeMo-Skills' shape", async () => {
    const { status, body } = await post({ generated_code: "import sys\nprint(sys.stdin.read().upper())", language: "python", timeout: 10, std_input: "hi" });
    expect(status).toBe(200);
    expect(body).toEqual({ process_status: "completed", stdout: "HI\n", stderr: "" });
  });

  it("reports errors, timeouts and shell", async () => {
    const error = await post({ generated_code: "1/0", language: "python3", timeout: 10 });
    expect(error.body.process_status).toBe("error");
    expect(error.body.stderr).toContain("ZeroDivisionError");
    const timeout = await post({ generated_code: "while True: pass", language: "python", timeout: 1 });
    expect(timeout.body).toMatchObject({ process_status: "timeout", stderr: "Timed out\n" });
    const shell = await post({ generated_code: "echo $((2 + 3))", language: "shell", timeout: 10 });
    expect(shell.body).toEqual({ process_status: "completed", stdout: "5\n", stderr: "" });
  });

  it("cuts output at max_output_characters (default 1000)", async () => {
    const long = await post({ generated_code: "print('a' * 5000)", language: "python", timeout: 10 });
    expect(long.body.stdout).toBe(`${"a".repeat(1000)}<output cut>`);
    const short = await post({ generated_code: "print('abcdef')", language: "python", timeout: 10, max_output_characters: 3 });
    expect(short.body.stdout).toBe("abc<output cut>");
  });

  it("names the supported languages for an unknown one (400), and 422s a malformed body", async () => {
    const unknown = await post({ generated_code: "x", language: "cobol", timeout: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain("python, python3, shell, ipython");
    const malformed = await post({ language: "python" });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(["body", "generated_code"]);
  });

  it("runs ipython without a session as a one-off cell (the clients' default language)", async () => {
    const { body } = await post({ generated_code: "x = 6\nx * 7", timeout: 10 });
    expect(body).toEqual({ process_status: "completed", stdout: "42\n", stderr: "" });
  });

  it("keeps ipython state per X-Session-ID, lists sessions, deletes them", async () => {
    const a = { "X-Session-ID": "session-a" };
    const b = { "X-Session-ID": "session-b" };
    expect((await post({ generated_code: "total = 40", language: "ipython", timeout: 10 }, a)).body.process_status).toBe("completed");
    const second = await post({ generated_code: "total += 2\ntotal", language: "ipython", timeout: 10 }, a);
    expect(second.body).toEqual({ process_status: "completed", stdout: "42\n", stderr: "" });
    expect(second.headers.get("x-session-id")).toBe("session-a");
    const other = await post({ generated_code: "total", language: "ipython", timeout: 10 }, b);
    expect(other.body.process_status).toBe("error");
    expect(other.body.stderr).toContain("NameError");

    const listed = (await (await fetch(`${url}/sessions`)).json()) as { sessions: Array<{ session_id: string }> };
    expect(listed.sessions.map((s) => s.session_id).sort()).toEqual(["session-a", "session-b"]);
    expect((await fetch(`${url}/sessions/session-a`, { method: "DELETE" })).status).toBe(200);
    expect((await fetch(`${url}/sessions/session-a`, { method: "DELETE" })).status).toBe(404);
    const fresh = await post({ generated_code: "total", language: "ipython", timeout: 10 }, a);
    expect(fresh.body.stderr).toContain("NameError");
  });

  it("restarts a session whose cell times out, and evicts the least recently used idle one when full", async () => {
    const c = { "X-Session-ID": "session-c" };
    await post({ generated_code: "kept = 1", language: "ipython", timeout: 10 }, c);
    const stuck = await post({ generated_code: "import time\ntime.sleep(60)", language: "ipython", timeout: 1 }, c);
    expect(stuck.body.process_status).toBe("timeout");
    const after = await post({ generated_code: "kept", language: "ipython", timeout: 10 }, c);
    expect(after.body.stderr).toContain("NameError");
    // Two session slots: a third and a fourth id still get served, by evicting idle ones.
    for (const id of ["session-d", "session-e", "session-f"]) {
      expect((await post({ generated_code: "1 + 1", language: "ipython", timeout: 10 }, { "X-Session-ID": id })).body.stdout).toBe("2\n");
    }
    expect(sessions.list().length).toBeLessThanOrEqual(2);
  });

  it("answers health and leaves no processes behind once sessions close", async () => {
    const health = await (await fetch(`${url}/health`)).json();
    expect(health).toMatchObject({ status: "healthy", isolation: sandbox.isolation });
    await sessions.close();
    expect(sandbox.uids.flatMap((uid) => processesOfUid(uid))).toEqual([]);
  });
});

describe("gym sandbox", () => {
  const dir = mkdtempSync(join(os.tmpdir(), "gymkit-sandbox-cli-"));

  it("exec prints the JSON result; exit 0 only when the program's status is ok", async () => {
    writeFileSync(join(dir, "echo.py"), "import sys\nprint(sys.stdin.read()[::-1])\n");
    writeFileSync(join(dir, "input.txt"), "olleh");
    const ok = await runGym(["sandbox", "exec", join(dir, "echo.py"), "--stdin", join(dir, "input.txt"), "--timeout", "10"]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ status: "ok", stdout: "hello\n", exitCode: 0, isolation: expect.stringContaining("bwrap") });

    writeFileSync(join(dir, "spin.sh"), "while true; do :; done\n");
    const spin = await runGym(["sandbox", "exec", join(dir, "spin.sh"), "--timeout", "1"]);
    expect(spin.code).toBe(1);
    expect(JSON.parse(spin.stdout).status).toBe("timeout");

    const missing = await runGym(["sandbox", "exec", join(dir, "nope.py")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read the program");
  });

  it("serve answers /execute until SIGTERM", async () => {
    const child = startGym(["sandbox", "serve", "--port", "0"]);
    try {
      const banner = await waitForOutput(child, (text) => /http:\/\/127\.0\.0\.1:\d+/.test(text));
      const served = /http:\/\/127\.0\.0\.1:\d+/.exec(banner)![0];
      const response = await fetch(`${served}/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ generated_code: "print(2 ** 10)", language: "python", timeout: 10 }),
      });
      expect(await response.json()).toEqual({ process_status: "completed", stdout: "1024\n", stderr: "" });
    } finally {
      expect((await stopChild(child)).code).toBe(0);
    }
  });
});

describe("POST /execute says why the sandbox stopped a program", () => {
  const MiB = 1024 * 1024;
  let small: Sandbox;
  let smallApp: FastifyInstance;
  let smallUrl: string;
  beforeAll(async () => {
    // One session slot, so a second session id evicts the first.
    small = await Sandbox.create({ concurrency: 2, maxSessions: 1 });
    ({ app: smallApp } = await buildSandboxService({ sandbox: small, limits: { memoryBytes: 128 * MiB, stdoutBytes: 10_000, stderrBytes: 10_000 } }));
    smallUrl = await listen(smallApp);
  });
  afterAll(async () => {
    await smallApp?.close();
    await small?.close();
  });
  const execute = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${smallUrl}/execute`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    return (await response.json()) as { process_status: string; stdout: string; stderr: string; sandbox_status?: string; reason?: string; warning?: string };
  };
  const HOG = "chunks = []\nwhile True:\n    chunks.append(b'x' * 10_000_000)\n";

  for (const session of [undefined, "hog"]) {
    const how = session ? "an ipython session" : "a one-shot run";
    const headers: Record<string, string> = session ? { "X-Session-ID": session } : {};
    const language = session ? "ipython" : "python";

    it(`memory-limit kill (${how}): reason field and a line on stderr`, async () => {
      const reply = await execute({ generated_code: HOG, language, timeout: 30 }, headers);
      expect(reply).toMatchObject({ process_status: "error", sandbox_status: "memory" });
      expect(reply.reason).toMatch(/^(killed: memory limit 128 MiB exceeded|memory limit 128 MiB reached: an allocation failed)/);
      expect(reply.stderr).toContain(`sandbox: ${reply.reason}\n`);
    }, 60_000);

    it(`output-limit kill (${how}): a marker at the cut, reason field and a line on stderr`, async () => {
      const reply = await execute({ generated_code: "while True:\n    print('y' * 999)\n", language, timeout: 30, max_output_characters: 50_000 }, headers);
      expect(reply).toMatchObject({ process_status: "error", sandbox_status: "output_limit" });
      expect(reply.reason).toMatch(/^output truncated after 10000 bytes: stdout passed its cap/);
      expect(reply.stdout).toBe(`${"y".repeat(999)}\n`.repeat(10).slice(0, 10_000) + "\n[output truncated after 10000 bytes]\n");
      expect(reply.stderr).toContain(`sandbox: ${reply.reason}\n`);
      // Cut again at max_output_characters, the sandbox's line still shows.
      const short = await execute({ generated_code: "import sys\nwhile True:\n    sys.stderr.write('e' * 999)\n", language, timeout: 30, max_output_characters: 100 }, headers);
      expect(short.sandbox_status).toBe("output_limit");
      // (A session's cell may start with the warning that the previous cell's kill restarted it.)
      expect(short.stderr.endsWith(`\n${"e".repeat(100)}<output cut>\nsandbox: ${short.reason}\n`) || short.stderr === `${"e".repeat(100)}<output cut>\nsandbox: ${short.reason}\n`).toBe(true);
      if (session) expect(short.warning).toMatch(/its interpreter was stopped after a cell ended with output_limit/);
    }, 60_000);
  }

  it("warns when a session was evicted and restarted empty; not after a DELETE", async () => {
    const a = { "X-Session-ID": "evicted" };
    expect((await execute({ generated_code: "kept = 41", timeout: 10 }, a)).process_status).toBe("completed");
    // The only session slot goes to another id: the first session is evicted.
    const other = await execute({ generated_code: "1 + 1", timeout: 10 }, { "X-Session-ID": "newcomer" });
    expect(other.warning).toBeUndefined();
    const back = await execute({ generated_code: "kept + 1", timeout: 10 }, a);
    expect(back.warning).toBe('session "evicted" was restarted empty: it was evicted, least recently used, to free a slot for another session (all 1 session slots were in use); variables and imports of earlier cells are gone');
    expect(back.stderr.startsWith(`sandbox: warning: ${back.warning}\n`)).toBe(true);
    expect(back.stderr).toContain("NameError");
    // Only the first cell of the new session carries it.
    const next = await execute({ generated_code: "kept = 1\nkept", timeout: 10 }, a);
    expect(next).toEqual({ process_status: "completed", stdout: "1\n", stderr: "" });

    expect((await fetch(`${smallUrl}/sessions/evicted`, { method: "DELETE" })).status).toBe(200);
    const fresh = await execute({ generated_code: "1", timeout: 10 }, a);
    expect(fresh).toEqual({ process_status: "completed", stdout: "1\n", stderr: "" });
  }, 60_000);

  it("warns on the next cell after a session was stopped with its cell", async () => {
    const c = { "X-Session-ID": "stopped" };
    await execute({ generated_code: "kept = 1", timeout: 10 }, c);
    const stuck = await execute({ generated_code: "import time\ntime.sleep(60)", timeout: 1 }, c);
    expect(stuck).toMatchObject({ process_status: "timeout", sandbox_status: "timeout", stderr: "Timed out\n" });
    const after = await execute({ generated_code: "print('hi')", timeout: 10 }, c);
    expect(after.process_status).toBe("completed");
    expect(after.warning).toMatch(/^session "stopped" was restarted empty: its interpreter was stopped after a cell ended with timeout/);
  }, 60_000);
});
