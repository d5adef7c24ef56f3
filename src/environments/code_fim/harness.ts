// The program that runs one HumanEval-Infilling check inside the sandbox, reproducing
// human_eval_infilling's `check_correctness` (openai/human-eval-infilling, commit 88062ff) as NeMo Gym
// 07d6b0d calls it: the program `prompt + completion + suffix + "\n" + test + "\n" + "check(<entry>)"`
// runs in a forked child, in a fresh temporary directory, under that library's reliability guard
// (destructive os/shutil/subprocess functions, exit/quit/help disabled), all standard streams
// swallowed, with an interval timer of `timeout` seconds. The child reports "passed", "timed out"
// (the timer fired) or "failed: <str(exception)>"; the parent waits timeout + 1 s, and a child that
// reported nothing by then is "timed out".
export const FIM_HARNESS = String.raw`
import contextlib, io, json, os, select, signal, sys, tempfile, time

with open("task.json", encoding="utf-8") as f:
    TASK = json.load(f)
with open("completion.txt", encoding="utf-8") as f:
    COMPLETION = f.read()
TIMEOUT = float(sys.argv[1])


class Expired(Exception):
    pass


class Sink(io.StringIO):
    def read(self, *a, **k):
        raise IOError
    def readline(self, *a, **k):
        raise IOError
    def readlines(self, *a, **k):
        raise IOError
    def readable(self, *a, **k):
        return False


def guard():
    import builtins, faulthandler, shutil, subprocess
    faulthandler.disable()
    builtins.exit = None
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork",
                 "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown",
                 "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"):
        setattr(os, name, None)
    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None
    subprocess.Popen = None
    builtins.help = None
    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[name] = None


def child(report):
    os.chdir(tempfile.mkdtemp())
    guard()
    program = TASK["prompt"] + COMPLETION + TASK["suffix"] + "\n" + TASK["test"] + "\n" + "check(" + TASK["entry_point"] + ")"
    try:
        scope = {}
        sink = Sink()
        saved = sys.stdin
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            sys.stdin = sink
            try:
                def expire(signum, frame):
                    raise Expired("Timed out!")
                signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
                signal.signal(signal.SIGALRM, expire)
                try:
                    exec(program, scope)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            finally:
                sys.stdin = saved
        outcome = "passed"
    except Expired:
        outcome = "timed out"
    except BaseException as error:
        outcome = "failed: " + str(error)
    report(outcome)


def main():
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            child(lambda text: os.write(write_end, json.dumps(text).encode() + b"\n"))
        finally:
            os._exit(0)
    os.close(write_end)
    data = b""
    until = time.monotonic() + TIMEOUT + 1
    while b"\n" not in data:
        left = until - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([read_end], [], [], left)
        if not ready:
            break
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        data += chunk
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    outcome = json.loads(data.split(b"\n")[0]) if b"\n" in data else "timed out"
    sys.stdout.write(json.dumps({"passed": outcome == "passed", "result": outcome}))


main()
`;
