// The Python program that runs a model's `transform()` in Gymkit's sandbox, behaving as NeMo Gym's
// nvarc subprocess does at commit 07d6b0d (written here from its behaviour, not copied): the model's
// code runs with a reduced set of builtins (no open/input/exit/dir/globals/…, and none of the names
// that start with an underscore, so a `class` statement fails as it does there) and an import hook
// that refuses os, subprocess, socket, pickle, threading and the like; its prints are swallowed;
// `transform(test_input)` runs under a SIGALRM deadline; numpy values (and tensors) become plain
// lists and numbers. The last line of stdout is a JSON object: {"success": true, "result": …} or
// {"success": false, "error": "…"}.
export const HARNESS = String.raw`
import io, json, signal, sys

BLOCKED_BUILTINS = {"open", "input", "breakpoint", "help", "license", "credits", "copyright",
                    "exit", "quit", "vars", "dir", "globals", "locals"}
BLOCKED_MODULES = {"os", "subprocess", "shutil", "pathlib", "builtins", "socket", "urllib", "requests",
                   "http", "ftplib", "smtplib", "pickle", "shelve", "marshal", "importlib", "pkgutil",
                   "ctypes", "multiprocessing", "threading", "signal", "tempfile", "fileinput", "codecs",
                   "pty", "fcntl", "resource", "syslog", "asyncio", "concurrent"}

code = open("solution.py", encoding="utf-8").read()
grid = json.load(open("input.json", encoding="utf-8"))
deadline = int(open("timeout.txt").read())
real_import = __builtins__.__import__


def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if name.split(".")[0] in BLOCKED_MODULES:
        raise ImportError(f"Import of '{name}' is not allowed in sandbox")
    return real_import(name, globals, locals, fromlist, level)


allowed = {k: getattr(__builtins__, k) for k in dir(__builtins__) if k not in BLOCKED_BUILTINS and not k.startswith("_")}
allowed.update({"__name__": "__main__", "__doc__": None, "__import__": guarded_import})
allowed["__builtins__"] = allowed


def plain(value):
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        if isinstance(value, np.ndarray):
            return plain(value.tolist())
        if isinstance(value, np.integer):
            return int(value)
        if isinstance(value, np.floating):
            return float(value)
        if isinstance(value, np.bool_):
            return bool(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


class Overtime(Exception):
    pass


def on_alarm(signum, frame):
    raise Overtime(f"Transform execution exceeded {deadline}s")


stdout = sys.stdout
sys.stdout = io.StringIO()
sys.stderr = io.StringIO()
try:
    scope = {"__builtins__": allowed}
    exec(code, scope)
    if "transform" not in scope:
        raise ValueError("No 'transform' function defined in code")
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(deadline)
    try:
        result = scope["transform"](grid)
    finally:
        signal.alarm(0)
    if result is not None and hasattr(result, "detach") and hasattr(result, "cpu"):
        result = result.detach().cpu().tolist()
    result = plain(result) if result is not None else None
    sys.stdout = stdout
    print(json.dumps({"success": True, "result": result}))
except Overtime as e:
    sys.stdout = stdout
    print(json.dumps({"success": False, "error": f"TimeoutError: {e}"}))
except Exception as e:
    sys.stdout = stdout
    print(json.dumps({"success": False, "error": f"{type(e).__name__}: {str(e)[:500]}"}))
`;
