// The program that checks one evalplus solution inside the sandbox, reproducing evalplus 0.3.1's
// `check_correctness` as NeMo Gym 07d6b0d calls it (base and plus inputs, fast_check off):
// - the expected outputs and reference times come from the task's canonical solution, run first in the
//   same program on deep copies of each input (evalplus' `trusted_exec`; NeMo Gym computes them once
//   at start-up: here they are recomputed per check, on this machine);
// - each input set (base, plus) runs in a forked child: in a fresh temporary directory, with the
//   destructive os/shutil/subprocess/builtins functions disabled as evalplus' reliability guard does,
//   all standard streams swallowed, the solution exec'd once, then each input called under an
//   interval timer of max(min_time_limit, factor · reference time) seconds and compared as evalplus
//   compares (exact ==, the per-dataset special oracles, float tolerance through numpy.allclose);
// - the parent waits min(60, Σ limits) + 3 s, then kills the child; a child that did not report
//   its end is "timeout", one whose code failed to load is "fail", and "pass" needs every input
//   recorded as passing (so HumanEval/32's `find_zero` branch, which records nothing on success,
//   can never pass, as in evalplus 0.3.1).
// The verdict is as trustworthy as evalplus' own: the checker and the solution share one process.
export const EVALPLUS_HARNESS = String.raw`
import copy, contextlib, io, json, math, os, select, signal, sys, tempfile, time

import numpy as np

with open("task.json", encoding="utf-8") as f:
    TASK = json.load(f)
with open("solution.py", encoding="utf-8") as f:
    SOLUTION = f.read()
with open("params.json", encoding="utf-8") as f:
    PARAMS = json.load(f)
DATASET = PARAMS["dataset"]

SET_EQ = {"similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly",
          "larg_nnum", "intersection_array", "find_dissimilar", "Diff"}
NOT_NONE = {"check_str", "text_match_three", "text_starta_endb"}


# MBPP+ stores tuples, sets and complex numbers as JSON lists and strings; evalplus' loader turns them
# back per task number (evalplus 0.3.1 data/mbpp.py), before anything runs.
TUPLE_ARGS = {2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726,
              740, 744, 809}
TUPLE_ITEMS_OF_ARGS = {63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780}
TUPLE_ITEMS_OF_FIRST = {75, 413, 444, 753}
TUPLE_SECOND = {106, 750}
TUPLE_FIRST = {250, 405, 446, 617, 720, 763, 808}
TUPLE_BOTH_LEVELS = {259, 401, 445}
ALL_TUPLES = {580, 615, 791}


def deep_tuple(value):
    return tuple(deep_tuple(v) for v in value) if isinstance(value, list) else value


def mbpp_inputs(number, inputs):
    if number in TUPLE_ARGS:
        return [[tuple(a) for a in inp] for inp in inputs]
    if number in TUPLE_ITEMS_OF_ARGS:
        return [[[tuple(x) for x in a] for a in inp] for inp in inputs]
    if number in TUPLE_ITEMS_OF_FIRST:
        return [[[tuple(x) for x in inp[0]]] + [inp[1]] for inp in inputs]
    if number in TUPLE_SECOND:
        return [[inp[0]] + [tuple(inp[1])] for inp in inputs]
    if number == 115:
        return [[[set(x) if isinstance(x, list) and len(x) else {} for x in inp[0]]] for inp in inputs]
    if number == 124:
        return [(float(inp[0]), complex(inp[1])) for inp in inputs]
    if number in TUPLE_FIRST:
        return [[tuple(inp[0])] + [inp[1]] for inp in inputs]
    if number in TUPLE_BOTH_LEVELS:
        once = [[[tuple(x) for x in a] for a in inp] for inp in inputs]
        return [[tuple(a) for a in inp] for inp in once]
    if number == 278:
        once = [[[tuple(x) if isinstance(x, list) else x for x in inp[0]]] for inp in inputs]
        return [[tuple(a) for a in inp] for inp in once]
    if number == 307:
        return [[tuple(inp[0])] + [inp[1], inp[2]] for inp in inputs]
    if number == 722:
        return [[{k: tuple(v) for k, v in inp[0].items()}] + inp[1:] for inp in inputs]
    if number == 252:
        return [[complex(inp[0])] for inp in inputs]
    if number in ALL_TUPLES:
        return [deep_tuple(inp) for inp in inputs]
    return inputs


if DATASET == "mbpp":
    NUMBER = int(TASK["task_id"].split("/")[-1])
    TASK["base_input"] = mbpp_inputs(NUMBER, TASK["base_input"])
    TASK["plus_input"] = mbpp_inputs(NUMBER, TASK["plus_input"])


def poly_at(xs, x):
    return sum([c * math.pow(x, i) for i, c in enumerate(xs)])


def pyramid_surface(base_edge, height):
    slant = math.sqrt((base_edge / 2) ** 2 + height ** 2)
    return round(base_edge ** 2 + 4 * (base_edge * slant) / 2)


def digit_distance(a, b):
    sa, sb = str(a), str(b)
    width = max(len(sa), len(sb))
    sa, sb = sa.zfill(width), sb.zfill(width)
    return sum(abs(int(x) - int(y)) for x, y in zip(sa, sb))


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


@contextlib.contextmanager
def swallowed():
    sink = Sink()
    saved = sys.stdin
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        sys.stdin = sink
        try:
            yield
        finally:
            sys.stdin = saved


@contextlib.contextmanager
def limited(seconds):
    def expire(signum, frame):
        raise Expired("Timed out!")
    signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.signal(signal.SIGALRM, expire)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def floats_only(x):
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return all(isinstance(i, float) for i in x)
    if isinstance(x, np.ndarray):
        return x.dtype == np.float64 or x.dtype == np.float32
    return False


def ground_truth(inputs):
    scope = {}
    exec(TASK["prompt"] + TASK["canonical_solution"], scope)
    fn = scope[TASK["entry_point"]]
    outputs, times = [], []
    for inp in inputs:
        inp = copy.deepcopy(inp)
        start = time.time()
        outputs.append(fn(*inp))
        times.append(time.time() - start)
    return outputs, times


def guard():
    import builtins, shutil, subprocess
    os.environ["OMP_NUM_THREADS"] = "1"
    builtins.exit = None
    builtins.quit = None
    builtins.open = None
    builtins.help = None
    for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork",
                 "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown",
                 "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"):
        setattr(os, name, None)
    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None
    subprocess.Popen = None
    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[name] = None


def check_inputs(inputs, expected, limits, atol, report):
    entry = TASK["entry_point"]
    scope = {}
    try:
        with swallowed():
            exec(SOLUTION, scope)
            fn = scope[entry]
        for i, inp in enumerate(inputs):
            try:
                with limited(limits[i]):
                    with swallowed():
                        out = fn(*inp)
                exp = expected[i]
                same = out == exp
                if DATASET == "mbpp":
                    if entry == "are_equivalent":
                        same = same or True
                    elif entry == "sum_div":
                        same = same or out == 0
                    elif entry == "surface_Area":
                        same = same or abs(out - pyramid_surface(*inp)) <= atol
                    elif entry == "digit_distance_nums":
                        same = same or out == digit_distance(*inp)
                    elif entry in SET_EQ:
                        same = set(out) == set(exp)
                    elif entry in NOT_NONE:
                        same = (out == exp) if isinstance(out, bool) else (exp == (out is not None))
                if DATASET == "humaneval" and entry == "find_zero":
                    assert abs(poly_at(*inp, out)) <= atol
                    continue
                if atol == 0 and floats_only(exp):
                    atol = 1e-6
                if not same and atol != 0:
                    assert type(out) == type(exp)
                    if isinstance(exp, (list, tuple)):
                        assert len(out) == len(exp)
                    assert np.allclose(out, exp, rtol=1e-07, atol=atol)
                else:
                    assert same
            except BaseException:
                report(b"%d:0\n" % i)
                continue
            report(b"%d:1\n" % i)
        report(b"S\n")
    except BaseException:
        report(b"F\n")


def run_set(inputs, expected, ref_times):
    limits = [max(PARAMS["min_time_limit"], PARAMS["gt_time_limit_factor"] * t) for t in ref_times]
    deadline = min(60, sum(limits)) + 3
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            work = tempfile.mkdtemp()
            os.chdir(work)
            guard()
            check_inputs(inputs, expected, limits, TASK["atol"], lambda b: os.write(write_end, b))
        finally:
            os._exit(0)
    os.close(write_end)
    data = b""
    until = time.monotonic() + deadline
    while True:
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
    os.close(read_end)
    details = [0] * len(inputs)
    progress = 0
    status = None
    for line in data.split(b"\n"):
        if line == b"S":
            status = "pass"
        elif line == b"F":
            status = "fail"
        elif b":" in line:
            i, v = line.split(b":")
            details[int(i)] = int(v)
            progress += 1
    details = details[:progress]
    if status is None:
        status = "timeout"
    if status == "pass" and (len(details) != len(inputs) or not all(details)):
        status = "fail"
    return status, details


def main():
    base_expected, base_times = ground_truth(TASK["base_input"])
    plus_expected, plus_times = ground_truth(TASK["plus_input"])
    base = run_set(TASK["base_input"], base_expected, base_times)
    plus = run_set(TASK["plus_input"], plus_expected, plus_times)
    sys.stdout.write(json.dumps({"base_status": base[0], "base_details": base[1], "plus_status": plus[0], "plus_details": plus[1]}))


main()
`;
