// The sandbox runner: what a run gets (files, stdin, a clean environment, its own uid), what comes
// back (status, exit code, signal, capped output, isolation), and how it degrades: refusing to run
// without isolation unless told to, and staying safe when told to.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CGROUP_DIR } from "./cgroup.js";
import { classify } from "./classify.js";
import { PYTHON, programFor } from "./languages.js";
import { Sandbox, SandboxUnavailableError } from "./runner.js";
import { processesOfUid } from "./uids.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await Sandbox.create({ concurrency: 2, maxSessions: 1 });
});
afterAll(async () => {
  await sandbox?.close();
});

const isRoot = process.getuid?.() === 0;

describe("a sandbox run", () => {
  it("probes the layers and reports them with every result", async () => {
    expect(sandbox.report.layers.join("+")).toBe(sandbox.isolation);
    if (isRoot) expect(sandbox.isolation).toContain("uid");
    for (const layer of ["bwrap", "seccomp", "uid", "cgroup"] as const) {
      // Every layer is either there or missing for a stated reason.
      expect(sandbox.report.layers.includes(layer) !== (sandbox.report.missing[layer] !== undefined)).toBe(true);
    }
    const result = await sandbox.run({ argv: ["/bin/true"] });
    expect(result).toMatchObject({ status: "ok", exitCode: 0, signal: null, isolation: sandbox.isolation });
  });

  it("gets its files, stdin and argv in a private scratch dir, with a clean environment", async () => {
    process.env.GYMKIT_SANDBOX_TEST_SECRET = "do-not-leak";
    try {
      const result = await sandbox.run({
        argv: [PYTHON, "main.py", "an argument"],
        files: {
          "main.py":
            "import json, os, sys\nprint(json.dumps({'argv': sys.argv[1:], 'stdin': sys.stdin.read(), 'file': open('data/in.txt').read(), " +
            "'cwd': os.getcwd(), 'mode': oct(os.stat('.').st_mode & 0o777), 'env': dict(os.environ)}))\n",
          "data/in.txt": "from a file",
        },
        stdin: "from stdin",
        env: { EXTRA: "yes" },
      });
      expect(result.status).toBe("ok");
      const seen = JSON.parse(result.stdout);
      expect(seen).toMatchObject({ argv: ["an argument"], stdin: "from stdin", file: "from a file", cwd: "/sandbox", mode: "0o700" });
      expect(seen.env.EXTRA).toBe("yes");
      expect(seen.env.HOME).toBe("/sandbox");
      expect(JSON.stringify(seen.env)).not.toContain("do-not-leak");
    } finally {
      delete process.env.GYMKIT_SANDBOX_TEST_SECRET;
    }
  });

  it.skipIf(!isRoot)("runs as the slot's own unprivileged uid (skipped when not root: only root can switch uids)", async () => {
    const result = await sandbox.run({ argv: [PYTHON, "-c", "import os; print(os.getuid(), os.getgid())"] });
    const [uid, gid] = result.stdout.trim().split(" ").map(Number);
    expect(sandbox.uids).toContain(uid);
    expect(gid).toBe(uid);
  });

  it("refuses kernel attack surface (ptrace, eBPF, io_uring, keyrings, nested namespaces)", async (ctx) => {
    // The probe runs in beforeAll, so whether seccomp is there is known only now.
    ctx.skip(!sandbox.isolation.includes("seccomp"), `no seccomp layer on this machine: ${sandbox.report.missing.seccomp}`);
    const result = await sandbox.run({
      argv: [PYTHON, "-c", "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nfor nr in (101, 321, 425, 250, 272):\n    print(libc.syscall(nr, 0, 0, 0, 0), ctypes.get_errno())"],
    });
    expect(result.stdout.trim().split("\n")).toEqual(Array(5).fill("-1 1")); // EPERM each
    const nested = await sandbox.run({ argv: ["/bin/bash", "-c", "unshare -U true"] });
    expect(nested.status).toBe("runtime_error");
  });

  it("reports exit codes and signals", async () => {
    const exit = await sandbox.run({ argv: [PYTHON, "-c", "import sys; print('partial'); sys.exit(3)"] });
    expect(exit).toMatchObject({ status: "runtime_error", exitCode: 3, signal: null, stdout: "partial\n" });
    const segfault = await sandbox.run({ argv: [PYTHON, "-c", "import ctypes; ctypes.string_at(0)"] });
    expect(segfault).toMatchObject({ status: "runtime_error", exitCode: null, signal: "SIGSEGV" });
    const missing = await sandbox.run({ argv: ["no-such-program"] });
    expect(missing.status).toBe("runtime_error");
  });

  it("stops a CPU hog at its CPU limit even when the wall deadline is far", async () => {
    const result = await sandbox.run({ argv: [PYTHON, "-c", "while True: pass"], limits: { wallMs: 30_000, cpuMs: 1000 } });
    expect(result.status).toBe("timeout");
    expect(result.reason).toMatch(/CPU time limit/);
  });

  it("rejects file paths outside the scratch dir without running anything", async () => {
    for (const path of ["../escape.py", "/etc/passwd", "a/../../b", ""]) {
      const result = await sandbox.run({ argv: ["/bin/true"], files: { [path]: "x" } });
      expect(result.status).toBe("sandbox_error");
    }
  });

  it("streams stdout to the caller and stops when aborted", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const result = await sandbox.run({
      argv: [PYTHON, "-u", "-c", "import time\nprint('first')\ntime.sleep(60)"],
      limits: { wallMs: 60_000 },
      onStdout: (chunk) => {
        seen.push(chunk.toString());
        if (seen.join("").includes("first\n")) controller.abort();
      },
      signal: controller.signal,
    });
    expect(seen.join("")).toBe("first\n");
    expect(result.aborted).toBe(true);
  });

  it("queues runs beyond its concurrency and answers all of them", async () => {
    const results = await Promise.all(Array.from({ length: 7 }, (_, i) => sandbox.run({ ...programFor("python", `print(${i} ** 2)`) })));
    expect(results.map((r) => r.stdout.trim())).toEqual(["0", "1", "4", "9", "16", "25", "36"]);
    expect(sandbox.uids.flatMap((uid) => processesOfUid(uid))).toEqual([]);
  });

  it("runs shell and notebook-style python", async () => {
    const shell = await sandbox.run({ ...programFor("shell", "echo $((6 * 7)); echo oops >&2; exit 4") });
    expect(shell).toMatchObject({ status: "runtime_error", exitCode: 4, stdout: "42\n", stderr: "oops\n" });
    const cell = await sandbox.run({ ...programFor("ipython", "x = 20\nx * 2 + 2") });
    expect(cell).toMatchObject({ status: "ok", stdout: "42\n" });
  });
});

describe("without bubblewrap", () => {
  it("refuses to run, saying why and how to proceed", async () => {
    const creating = Sandbox.create({ disable: ["bwrap"], allowUnsafe: false });
    await expect(creating).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(creating).rejects.toThrow(/GYM_SANDBOX_ALLOW_UNSAFE=1/);
    await expect(creating).rejects.toThrow(/disabled/);
  });

  it("when explicitly allowed, runs with the other layers, never follows symlinks out of scratch, and removes it", async () => {
    const unsafe = await Sandbox.create({ disable: ["bwrap"], allowUnsafe: true, concurrency: 1, maxSessions: 1 });
    const dir = mkdtempSync(join(os.tmpdir(), "gymkit-unsafe-target-"));
    const target = join(dir, "precious.txt");
    writeFileSync(target, "keep me");
    try {
      expect(unsafe.isolation).not.toContain("bwrap");
      expect(unsafe.isolation).toMatch(/rlimit$/);
      const result = await unsafe.run({
        argv: [PYTHON, "main.py"],
        files: {
          "main.py": `import os\nos.symlink(${JSON.stringify(dir)}, "to_dir")\nos.symlink(${JSON.stringify(target)}, "to_file")\nos.makedirs("deep/er")\nos.symlink(${JSON.stringify(dir)}, "deep/er/link")\nprint(os.getcwd())\n`,
        },
      });
      expect(result.status).toBe("ok");
      const scratch = result.stdout.trim();
      expect(existsSync(scratch)).toBe(false);
      expect(readFileSync(target, "utf8")).toBe("keep me");
      expect(readdirSync(dir)).toEqual(["precious.txt"]);
    } finally {
      await unsafe.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("falls back to RLIMIT_AS for memory without a cgroup", async () => {
    const noCgroup = await Sandbox.create({ disable: ["cgroup"], concurrency: 1, maxSessions: 1 });
    try {
      expect(noCgroup.isolation).not.toContain("cgroup");
      const result = await noCgroup.run({ argv: [PYTHON, "-c", "x = b'a' * (600 * 1024 * 1024)"], limits: { memoryBytes: 256 * 1024 * 1024 } });
      expect(result.status).toBe("memory");
      expect(result.reason).toBe("memory limit 256 MiB reached: an allocation failed");
      expect(result.cpuMs).toBeNull();
    } finally {
      await noCgroup.close();
    }
  });
});

describe("clean-up", () => {
  it("gives two sandboxes in one process different slots, and removes a sandbox's cgroups on close", async () => {
    const mine = () =>
      new Set(
        ["/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory", "/sys/fs/cgroup"].flatMap((root) => {
          const dir = join(root, CGROUP_DIR);
          return existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith(`${process.pid}-`)).map((name) => `${root}/${name}`) : [];
        }),
      );
    const before = mine();
    const other = await Sandbox.create({ concurrency: 1, maxSessions: 1 });
    try {
      expect(other.uids.filter((uid) => sandbox.uids.includes(uid))).toEqual([]);
      await other.run({ argv: ["/bin/true"] });
      if (other.report.cgroups) expect(mine().size).toBeGreaterThan(before.size);
    } finally {
      await other.close();
    }
    expect(mine()).toEqual(before);
  });
});

describe("classify", () => {
  const base = { timedOut: false, outputLimited: null, exitCode: 0, signal: null, oomKilled: false, addressSpaceLimited: false, stderr: "", wallMs: 1000, cpuSeconds: 2, cpuMs: 10, measuredWallMs: 50 } as const;
  it("decides from host facts, and lets stderr only pick between failures", () => {
    expect(classify(base).status).toBe("ok");
    // A program printing "MemoryError" and exiting 0 is fine.
    expect(classify({ ...base, stderr: "MemoryError" }).status).toBe("ok");
    expect(classify({ ...base, exitCode: 1, stderr: "MemoryError" }).status).toBe("memory");
    expect(classify({ ...base, exitCode: null, signal: "SIGKILL", cpuMs: 2100 }).status).toBe("timeout");
    expect(classify({ ...base, exitCode: null, signal: "SIGKILL", oomKilled: true }).status).toBe("memory");
    expect(classify({ ...base, timedOut: true, exitCode: null, signal: "SIGKILL" }).status).toBe("timeout");
    expect(classify({ ...base, setupError: "bwrap failed" }).status).toBe("sandbox_error");
  });

  it("names the limit that stopped the program, with its value", () => {
    const killed = { ...base, exitCode: null, signal: "SIGKILL" };
    expect(classify({ ...killed, oomKilled: true, memoryBytes: 512 * 1024 * 1024 }).reason).toBe("killed: memory limit 512 MiB exceeded");
    expect(classify({ ...base, exitCode: 1, stderr: "MemoryError", addressSpaceLimited: true, memoryBytes: 1536 * 1024 * 1024 }).reason).toBe("memory limit 1536 MiB reached: an allocation failed");
    expect(classify({ ...killed, outputLimited: "stdout", outputCapBytes: 4096 }).reason).toBe("output truncated after 4096 bytes: stdout passed its cap, so the program was stopped");
    expect(classify({ ...base, exitCode: null, signal: "SIGXFSZ", fileBytes: 16 * 1024 * 1024 }).reason).toBe("killed: file size limit 16 MiB exceeded");
  });
});
