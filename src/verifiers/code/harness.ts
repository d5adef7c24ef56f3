// The Python that runs candidate code inside the sandbox. It never sees an expected output: it runs
// the candidate and reports what it printed (stdin mode) or returned (call mode); the host compares.
//
//   harness.py single MODE FN_NAME TIMEOUT   one test; its input on stdin
//   harness.py batch MODE FN_NAME TIMEOUT OUT_CAP ERR_CAP
//       every test in tests.json, each in a fresh fork of a warm, non-dumpable parent that writes one
//       length-prefixed frame per test to a private copy of stdout. A test's process cannot reach
//       that fd (closed before the candidate runs) nor the parent's memory or fds (non-dumpable), and
//       every process of a test is killed before the next test starts, so no test can write or
//       influence another test's frame. All it can do to the parent is kill it, which fails the rest.
//
// A report line `\0GYMKIT-REPORT {json}` ends stderr: how the run ended, the call result, timing.

/** LiveCodeBench's header: the stdlib star-imports solutions may rely on, and a deep recursion limit. */
export const LCB_IMPORTS =
  "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\nfrom heapq import *\n" +
  "from bisect import *\nfrom copy import *\nfrom math import *\nfrom random import *\nfrom statistics import *\n" +
  "from itertools import *\nfrom functools import *\nfrom operator import *\nfrom io import *\nfrom sys import *\n" +
  "from json import *\nfrom builtins import *\nfrom typing import *\nimport string\nimport re\nimport datetime\n" +
  "import collections\nimport heapq\nimport bisect\nimport copy\nimport math\nimport random\nimport statistics\n" +
  "import itertools\nimport functools\nimport operator\nimport io\nimport sys\nimport json\nsys.setrecursionlimit(50000)\n";

export const REPORT_MARKER = "\0GYMKIT-REPORT ";
export const FRAME_MARKER = "\0GYMKIT-FRAME ";

export const HARNESS = String.raw`
import builtins, json, os, signal, sys, time, traceback

HEADER = ${JSON.stringify(LCB_IMPORTS)}
REPORT = "\x00GYMKIT-REPORT "

def report(record):
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass
    data = ("\n" + REPORT + json.dumps(record) + "\n").encode()
    while data:
        data = data[os.write(2, data):]

def truncate(text, limit=2000):
    return text if len(text) <= limit else text[: limit // 2] + "...(truncated) ..." + text[-limit // 2 :]

class TimeoutException(Exception):
    pass

def on_alarm(signum, frame):
    raise TimeoutException("Time Limit Exceeded")

def run_one(mode, fn_name, code, data, timeout):
    try:
        compiled = compile(code, "<string>", "exec")
    except BaseException as error:
        report({"kind": "compile_error", "message": str(error), "error": repr(error)})
        return
    namespace = {"__name__": "__main__" if mode == "stdin" else "tmp_sol", "__builtins__": builtins}
    exec(HEADER, namespace)
    signal.signal(signal.SIGALRM, on_alarm)
    started = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, timeout)
        if mode == "stdin":
            try:
                exec(compiled, namespace)
            except SystemExit:
                pass
            signal.setitimer(signal.ITIMER_REAL, 0)
            report({"kind": "ok", "time": time.perf_counter() - started})
            return
        try:
            exec(compiled, namespace)
            target = namespace["Solution"]() if "class Solution" in code else None
        except TimeoutException:
            raise
        except BaseException as error:
            signal.setitimer(signal.ITIMER_REAL, 0)
            report({"kind": "compile_error", "message": str(error), "error": repr(error)})
            return
        method = getattr(target, fn_name, None) if target is not None else namespace.get(fn_name)
        if not callable(method):
            signal.setitimer(signal.ITIMER_REAL, 0)
            report({"kind": "compile_error", "message": "function %r not found" % fn_name, "error": "AttributeError(%r)" % fn_name})
            return
        args = [json.loads(line) for line in data.split("\n")]
        started = time.perf_counter()
        prediction = method(*args)
        elapsed = time.perf_counter() - started
        signal.setitimer(signal.ITIMER_REAL, 0)
        if isinstance(prediction, tuple):
            prediction = list(prediction)
        record = {"kind": "result", "time": elapsed, "json": None, "float": None}
        try:
            record["repr"] = truncate(repr(prediction))
        except BaseException:
            record["repr"] = "<unrepresentable>"
        try:
            record["json"] = json.dumps(prediction)
        except BaseException:
            try:
                record["float"] = float(prediction)
            except BaseException:
                pass
        report(record)
    except TimeoutException:
        report({"kind": "timeout"})
    except BaseException as error:
        signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            # From the candidate's frame on: the harness's own frame is noise.
            traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        except BaseException:
            pass
        report({"kind": "runtime_error", "error": truncate(repr(error))})

def single(mode, fn_name, timeout):
    with open("solution.py", encoding="utf-8", errors="replace") as f:
        code = f.read()
    data = None
    if mode == "call":
        data = sys.stdin.read()
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
    run_one(mode, fn_name, code, data, timeout)
    os._exit(0)

def sweep():
    """Kills every process in the sandbox but us and its init, and reaps our children."""
    me = os.getpid()
    for _ in range(2000):
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        while True:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        left = []
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) not in (1, me):
                try:
                    with open("/proc/%s/stat" % name) as f:
                        state = f.read().rsplit(")", 1)[1].split()[0]
                except OSError:
                    continue
                if state not in ("Z", "X"):
                    left.append(name)
        if not left:
            return
        time.sleep(0.001)
    raise SystemExit("could not clear the sandbox between tests")

def batch(mode, fn_name, timeout, out_cap, err_cap):
    import ctypes, fcntl, math, resource, select
    # Non-dumpable: no process of the sandbox uid may ptrace us or open our /proc fds and memory.
    ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    frames = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    with open("solution.py", encoding="utf-8", errors="replace") as f:
        code = f.read()
    with open("tests.json", encoding="utf-8") as f:
        tests = json.load(f)
    exec(HEADER, {})  # warm the imports once; every fork starts with them loaded
    fd_limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    cpu = int(math.ceil(timeout)) + 1
    for index, data in enumerate(tests):
        sweep()
        if mode == "stdin":
            stdin_fd = os.memfd_create("stdin")
            os.write(stdin_fd, data.encode())
            os.lseek(stdin_fd, 0, os.SEEK_SET)
        else:
            stdin_fd = os.dup(null)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        started = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                os.dup2(stdin_fd, 0)
                os.dup2(out_w if mode == "stdin" else null, 1)
                os.dup2(err_w, 2)
                os.closerange(3, fd_limit)
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
                run_one(mode, fn_name, code, data, timeout)
            finally:
                os._exit(0)
        os.close(out_w)
        os.close(err_w)
        os.close(stdin_fd)
        for fd in (out_r, err_r):
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
        buffers = {out_r: bytearray(), err_r: bytearray()}
        caps = {out_r: out_cap, err_r: err_cap}
        open_fds = [out_r, err_r]
        status, code_, signal_ = None, None, None
        deadline = started + timeout + 1.0
        exited_at = None
        while True:
            if exited_at is None:
                done, wait_status = os.waitpid(pid, os.WNOHANG)
                if done:
                    exited_at = time.perf_counter()
                    if os.WIFSIGNALED(wait_status):
                        status, signal_ = "signaled", os.WTERMSIG(wait_status)
                    else:
                        status, code_ = "exited", os.WEXITSTATUS(wait_status)
            now = time.perf_counter()
            if exited_at is None and now > deadline:
                status = "timeout"
                break
            # After the test's process exits, its leftovers get a short drain, then die in sweep().
            if exited_at is not None and (not open_fds or now - exited_at > 0.3):
                break
            if not open_fds:
                time.sleep(0.002)
                continue
            ready, _, _ = select.select(open_fds, [], [], 0.01)
            for fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    open_fds.remove(fd)
                    continue
                buffers[fd] += chunk
                if len(buffers[fd]) > caps[fd]:
                    status = "output_limit"
            if status == "output_limit":
                break
        if exited_at is None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(out_r)
        os.close(err_r)
        out = bytes(buffers[out_r][:out_cap])
        err = bytes(buffers[err_r][:err_cap])
        header = {"index": index, "status": status, "code": code_, "signal": signal_, "wall": time.perf_counter() - started, "out": len(out), "err": len(err)}
        frame = b"\x00GYMKIT-FRAME " + json.dumps(header).encode() + b"\n" + out + err
        while frame:
            frame = frame[os.write(frames, frame):]
    sweep()

def main():
    command, mode, fn_name, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    if command == "single":
        single(mode, fn_name, timeout)
    else:
        batch(mode, fn_name, timeout, int(sys.argv[5]), int(sys.argv[6]))

main()
`;
