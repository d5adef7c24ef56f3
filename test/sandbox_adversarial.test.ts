// The floor of the sandbox's promises: hostile programs, each contained with the right status, the
// runner still answering other runs, and not one process of any slot uid left afterwards.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PYTHON } from "../src/sandbox/languages.js";
import { Sandbox } from "../src/sandbox/runner.js";
import type { RunLimits, RunResult } from "../src/sandbox/types.js";
import { processesOfUid } from "../src/sandbox/uids.js";
import { REPO_ROOT } from "./helpers/cli.js";

const CONCURRENCY = 4;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await Sandbox.create({ concurrency: CONCURRENCY, maxSessions: 1 });
});
afterAll(async () => {
  await sandbox?.close();
});

/** Every process of every run slot's uid: must be none once runs have settled. */
function leftovers(): number[] {
  return sandbox.uids.flatMap((uid) => processesOfUid(uid));
}

afterEach(() => {
  expect(leftovers()).toEqual([]);
});

function python(code: string, limits: Partial<RunLimits> = {}, extra: { stdin?: string } = {}): Promise<RunResult> {
  return sandbox.run({ argv: [PYTHON, "main.py"], files: { "main.py": code }, limits: { wallMs: 20_000, ...limits }, ...extra });
}

/** A short deadline for programs that must be stopped by it (generous enough for a loaded machine to start python). */
const STOP = { wallMs: 2500 };

describe("the sandbox contains hostile programs", () => {
  it("reports bubblewrap isolation on this machine", () => {
    expect(sandbox.isolation).toMatch(/^bwrap\+/);
    if (process.getuid?.() === 0) expect(sandbox.uids.length).toBe(CONCURRENCY + 1);
    expect(sandbox.isolation).toMatch(/rlimit$/);
  });

  it("cannot connect to a listener the test opened on 127.0.0.1", async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    const result = await python(`
import socket
try:
    socket.create_connection(("127.0.0.1", ${port}), timeout=5)
    print("CONNECTED")
except OSError as error:
    print("blocked", type(error).__name__)
`);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(result.status).toBe("ok");
    expect(result.stdout).toMatch(/^blocked/);
    expect(connections).toBe(0);
  });

  it("fails DNS and HTTP to a name fast", async () => {
    const result = await python(`
import os, socket, time, urllib.request
print("resolv.conf", os.path.exists("/etc/resolv.conf"))
start = time.monotonic()
try:
    socket.getaddrinfo("example.com", 80)
    print("RESOLVED")
except OSError as error:
    print("dns blocked", type(error).__name__)
print("dns seconds", time.monotonic() - start)
start = time.monotonic()
try:
    urllib.request.urlopen("http://example.com/", timeout=20)
    print("FETCHED")
except Exception as error:
    print("http blocked", type(error).__name__)
print("http seconds", time.monotonic() - start)
`);
    expect(result.status).toBe("ok");
    expect(result.stdout).toMatch(/dns blocked/);
    expect(result.stdout).toMatch(/http blocked/);
    // "Fast" means no resolver timeout. Without a resolv.conf the resolver waits 5 s for a server
    // (glibc's RES_TIMEOUT) before a lookup can fail by timing out: each failure came before one
    // such wait could have ended, so neither was a timeout.
    expect(result.stdout).toContain("resolv.conf False");
    const RESOLVER_TIMEOUT_S = 5;
    expect(Number(/dns seconds (\S+)/.exec(result.stdout)![1])).toBeLessThan(RESOLVER_TIMEOUT_S);
    expect(Number(/http seconds (\S+)/.exec(result.stdout)![1])).toBeLessThan(RESOLVER_TIMEOUT_S);
  });

  it("never lets writes to /tmp, /etc, $HOME or the project dir reach the host", async () => {
    const name = `gymkit-adversarial-${process.pid}-${Date.now()}`;
    const targets = [join("/tmp", name), join("/etc", name), join(os.homedir(), name), join(REPO_ROOT, name), join("/root", name)];
    const result = await python(`
import os
for path in ${JSON.stringify(targets)} + [os.path.join(os.environ["HOME"], "${name}")]:
    try:
        with open(path, "w") as f:
            f.write("pwned")
        print("wrote", path)
    except OSError as error:
        print("refused", path, error.errno)
`);
    expect(result.status).toBe("ok");
    for (const target of targets) expect(existsSync(target)).toBe(false);
  });

  it("cannot read the host's environment variables", async () => {
    process.env.GYMKIT_ADVERSARIAL_SECRET = "s3cr3t-value";
    try {
      const result = await python(`
import os
print(dict(os.environ))
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            print(open("/proc/%s/environ" % pid, "rb").read())
        except OSError:
            pass
try:
    print(open("/proc/${process.pid}/environ", "rb").read())
except OSError as error:
    print("no host pid", error.errno)
`);
      expect(result.status).toBe("ok");
      expect(result.stdout).not.toContain("s3cr3t-value");
      expect(result.stdout).not.toContain("GYMKIT_ADVERSARIAL_SECRET");
    } finally {
      delete process.env.GYMKIT_ADVERSARIAL_SECRET;
    }
  });

  it("cannot read another run's scratch while it runs", async () => {
    const secret = `scratch-secret-${Date.now()}`;
    const stop = new AbortController();
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    const holder = sandbox.run({
      argv: [PYTHON, "main.py"],
      files: { "main.py": `import time\nopen("secret.txt", "w").write(${JSON.stringify(secret)})\nopen("/tmp/secret.txt", "w").write(${JSON.stringify(secret)})\nprint("ready", flush=True)\ntime.sleep(60)\n` },
      limits: { wallMs: 60_000 },
      onStdout: (chunk) => {
        if (chunk.toString().includes("ready")) markReady();
      },
      signal: stop.signal,
    });
    await ready;
    const snoop = await python(`
import glob, os
found = []
for pattern in ["/sandbox/*", "/tmp/*", "/proc/*/root/sandbox/*", "/proc/*/root/tmp/*", "/proc/*/cwd/*", "/tmp/gymkit-sandbox-*/*/*"]:
    for path in glob.glob(pattern):
        try:
            found.append(open(path).read())
        except OSError:
            pass
print(found)
`);
    stop.abort();
    const held = await holder;
    expect(held.aborted).toBe(true);
    expect(snoop.status).toBe("ok");
    expect(snoop.stdout).not.toContain(secret);
  });

  it("does not follow planted symlinks, and clean-up spares their targets", async () => {
    const dir = mkdtempSync(join(os.tmpdir(), "gymkit-symlink-target-"));
    const target = join(dir, "precious.txt");
    writeFileSync(target, "keep me");
    try {
      const result = await python(`
import os
for link, dest in [("to_file", ${JSON.stringify(target)}), ("to_dir", ${JSON.stringify(dir)}), ("to_root", "/"), ("to_etc", "/etc/ld.so.cache")]:
    os.symlink(dest, link)
    os.symlink(dest, "/tmp/" + link)
for path in ["to_file", "to_dir/precious.txt", "to_etc", "/tmp/to_file"]:
    try:
        open(path, "w").write("overwritten")
        print("wrote", path)
    except OSError as error:
        print("refused", path, error.errno)
`);
      expect(result.status).toBe("ok");
      expect(result.stdout).not.toMatch(/^wrote/m);
      expect(readFileSync(target, "utf8")).toBe("keep me");
      expect(existsSync("/etc/ld.so.cache")).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("contains a fork bomb (timeout)", async () => {
    const result = await python(
      `
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
`,
      STOP,
    );
    expect(result.status).toBe("timeout");
  });

  it("contains a thread bomb (runtime_error)", async () => {
    const result = await python(
      `
import threading, time
while True:
    threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
`,
      { wallMs: 20_000 },
    );
    expect(result.status).toBe("runtime_error");
    expect(result.stderr).toMatch(/can't start new thread|Resource temporarily unavailable/);
  });

  it("contains a memory bomb (memory)", async () => {
    const result = await python(
      `
chunks = []
while True:
    chunks.append(b"x" * 10_000_000)
`,
      { wallMs: 20_000, memoryBytes: 256 * 1024 * 1024 },
    );
    expect(result.status).toBe("memory");
    expect(result.reason).toBe("killed: memory limit 256 MiB exceeded");
  });

  it("contains deep recursion: RecursionError, a C stack overflow (runtime_error), unbounded frames (memory)", async () => {
    const recursion = await python("def down(n):\n    return down(n + 1) + 1\ndown(0)\n");
    expect(recursion.status).toBe("runtime_error");
    expect(recursion.stderr).toContain("RecursionError");
    const cStack = await python("import sys\nsys.setrecursionlimit(10**8)\nnested = []\nfor _ in range(10**6):\n    nested = [nested]\nrepr(nested)\n");
    expect(cStack.status).toBe("runtime_error");
    expect(cStack.signal).toBe("SIGSEGV");
    const frames = await python("import sys\nsys.setrecursionlimit(10**9)\ndef down(n):\n    return down(n + 1) + 1\ndown(0)\n", {
      wallMs: 60_000,
      memoryBytes: 256 * 1024 * 1024,
    });
    expect(frames.status).toBe("memory");
  });

  // One test, the three programs side by side: each waits out its own deadline, and only the busy loop
  // wants a core, so together they take one deadline instead of three (leftovers are checked after all).
  it("stops a busy loop, a program that sleeps forever, and kills one that ignores SIGTERM (timeout)", async () => {
    const [busy, sleeper, stubborn] = await Promise.all([
      python("while True:\n    pass\n", STOP),
      python("import time\ntime.sleep(10**6)\n", STOP),
      python("import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(10**6)\n", STOP),
    ]);
    expect(busy.status).toBe("timeout");
    expect(sleeper.status).toBe("timeout");
    expect(stubborn.status).toBe("timeout");
  });

  it("kills a double-forked daemon that holds the output pipe (ok, nothing left)", async () => {
    const result = await python(`
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            print("daemon alive", flush=True)
            time.sleep(0.05)
    os._exit(0)
print("parent done", flush=True)
time.sleep(0.2)
`);
    expect(result.status).toBe("ok");
    expect(result.stdout).toContain("parent done");
  });

  it("caps a stdout flood (output_limit)", async () => {
    const result = await python("while True:\n    print('x' * 1000)\n", { wallMs: 20_000, stdoutBytes: 100_000 });
    expect(result.status).toBe("output_limit");
    expect(result.reason).toBe("output truncated after 100000 bytes: stdout passed its cap, so the program was stopped");
    // Exactly the cap is kept, then a marker shows where it was cut.
    expect(result.stdout).toBe(`${"x".repeat(1000)}\n`.repeat(100).slice(0, 100_000) + "\n[output truncated after 100000 bytes]\n");
  });

  it("caps a stderr flood (output_limit)", async () => {
    const result = await python("import sys\nwhile True:\n    sys.stderr.write('e' * 1000)\n", { wallMs: 20_000, stderrBytes: 100_000 });
    expect(result.status).toBe("output_limit");
    expect(result.stderr).toBe(`${"e".repeat(100_000)}\n[output truncated after 100000 bytes]\n`);
    expect(result.reason).toMatch(/^output truncated after 100000 bytes: stderr passed its cap/);
  });

  it("caps one giant line without a newline (output_limit)", async () => {
    const result = await python("import sys\nsys.stdout.write('y' * 50_000_000)\n", { wallMs: 20_000, stdoutBytes: 1_000_000 });
    expect(result.status).toBe("output_limit");
    expect(result.stdout).toBe(`${"y".repeat(1_000_000)}\n[output truncated after 1000000 bytes]\n`);
  });

  it("stops an oversize file (output_limit)", async () => {
    const pythonWrite = await python("open('big.bin', 'wb').write(b'z' * 5_000_000)\n", { wallMs: 20_000, fileBytes: 1_000_000 });
    expect(pythonWrite.status).toBe("output_limit");
    expect(pythonWrite.reason).toMatch(/file size limit 1000000 bytes/);
    const shellWrite = await sandbox.run({ argv: ["/bin/bash", "-c", "head -c 5000000 /dev/zero > big.bin"], limits: { wallMs: 20_000, fileBytes: 1_000_000 } });
    expect(shellWrite.status).toBe("output_limit");
    // Many files under the per-file cap still stop at the scratch size.
    const manyFiles = await python(
      "for i in range(100):\n    open('f%d' % i, 'wb').write(b'z' * 900_000)\n",
      { wallMs: 20_000, fileBytes: 1_000_000, scratchBytes: 8 * 1024 * 1024 },
    );
    expect(manyFiles.status).toBe("output_limit");
  });

  it("refuses 10,000 open files (runtime_error)", async () => {
    const result = await python("files = [open('/dev/null') for _ in range(10_000)]\n", { wallMs: 20_000 });
    expect(result.status).toBe("runtime_error");
    expect(result.stderr).toContain("Too many open files");
  });

  it("keeps answering other runs while bombs go off, and leaves nothing behind", async () => {
    const bombs = [
      python("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n", STOP),
      python("chunks = []\nwhile True:\n    chunks.append(b'x' * 10_000_000)\n", { wallMs: 20_000, memoryBytes: 256 * 1024 * 1024 }),
      python("while True:\n    print('x' * 1000)\n", { wallMs: 20_000, stdoutBytes: 100_000 }),
    ];
    const normal = await Promise.all(Array.from({ length: 6 }, (_, i) => python(`print(${i} * 7)`)));
    expect(normal.map((r) => r.status)).toEqual(Array(6).fill("ok"));
    expect(normal.map((r) => r.stdout.trim())).toEqual(Array.from({ length: 6 }, (_, i) => String(i * 7)));
    expect((await Promise.all(bombs)).map((r) => r.status)).toEqual(["timeout", "memory", "output_limit"]);
  });
});
