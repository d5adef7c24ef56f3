// A machine without bubblewrap: the sandbox refuses to run untrusted code, and that is the user's to
// fix — a UserError, printed by the CLI as one paragraph naming what to install, exit 2, no stack.
// The CLI case hides bwrap for one `gym` process in a private mount namespace (needs root and
// util-linux's unshare; reported as skipped without them).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exitCodeFor, EXIT } from "../src/cli/exit.js";
import { UserError } from "../src/config/user_error.js";
import { Sandbox, SandboxUnavailableError } from "../src/sandbox/runner.js";
import { GYM } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "gym-no-bwrap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function canHideBwrap(): boolean {
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/bwrap")) return false;
  // Only /usr/bin/bwrap is hidden: a second copy elsewhere on PATH would still be found.
  const elsewhere = (process.env.PATH ?? "").split(delimiter).some((d) => d !== "/usr/bin" && d !== "/bin" && existsSync(join(d, "bwrap")));
  try {
    execFileSync("unshare", ["-m", "true"], { stdio: "ignore" });
    return !elsewhere;
  } catch {
    return false;
  }
}

describe("no bubblewrap", () => {
  it("Sandbox.create refuses with a SandboxUnavailableError, a user error (exit 2)", async () => {
    const refused = await Sandbox.create({ concurrency: 1, maxSessions: 1, allowUnsafe: false, disable: ["bwrap"] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(SandboxUnavailableError);
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as Error).name).toBe("SandboxUnavailableError");
    expect(exitCodeFor(refused)).toBe(EXIT.usage);
    expect((refused as Error).message).toMatch(/refusing to run untrusted code without isolation: disabled\. Install bubblewrap \(apt-get install -y bubblewrap\), or set GYM_SANDBOX_ALLOW_UNSAFE=1/);
  });

  it.skipIf(!canHideBwrap())("gym sandbox exec says what to install, once, and exits 2 without a stack (needs root and unshare)", () => {
    const program = join(dir, "hello.py");
    writeFileSync(program, "print('hi')\n");
    const script = `mount --bind /dev/null /usr/bin/bwrap && exec "$0" "$1" sandbox exec "$2"`;
    let code = 0;
    let stderr = "";
    try {
      execFileSync("unshare", ["-m", "sh", "-c", script, process.execPath, GYM, program], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, GYM_SANDBOX_ALLOW_UNSAFE: "" } });
    } catch (error) {
      const failed = error as { status: number; stderr: string };
      code = failed.status;
      stderr = failed.stderr;
    }
    expect(code, stderr).toBe(EXIT.usage);
    expect(stderr).toMatch(/^gym: error: refusing to run untrusted code without isolation: bubblewrap is not installed \(apt-get install -y bubblewrap\)\. Install it, or set GYM_SANDBOX_ALLOW_UNSAFE=1/);
    expect(stderr.match(/apt-get install -y bubblewrap/g)).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
