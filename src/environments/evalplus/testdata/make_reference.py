# Writes reference.jsonl: evalplus 0.3.1's own verdict (base/plus status and details) for every case of
# cases.py on the task files here, computed the way NeMo Gym 07d6b0d calls it: ground truth from
# evalplus.gen.util.trusted_exec over the canonical solution, then evalplus.evaluate.check_correctness's
# two untrusted_check calls (fast_check off, min_time_limit 1.0, gt_time_limit_factor 4.0).
# Made with evalplus' source at tag v0.3.1 (git archive of github.com/evalplus/evalplus) on Debian 12's
# Python 3.11 with python3-numpy 1.24 (psutil, used only to read the machine's memory size for the
# 4 GiB rlimit, stubbed when absent):
#   PYTHONPATH=/path/to/evalplus-v0.3.1 /usr/bin/python3 make_reference.py
import json, multiprocessing, sys, types

# evalplus 0.3.1 was written for the fork start method (Linux's default before Python 3.14).
multiprocessing.set_start_method("fork")

for stub in ("wget", "tempdir", "appdirs", "datasets"):  # download helpers the loaders import, never called here
    module = types.ModuleType(stub)
    module.user_cache_dir = lambda *a, **k: "/tmp"
    module.load_dataset = None
    sys.modules.setdefault(stub, module)
try:
    import psutil  # noqa: F401
except ImportError:
    psutil = types.ModuleType("psutil")
    psutil.virtual_memory = lambda: types.SimpleNamespace(total=64 * 1024 ** 3)
    sys.modules["psutil"] = psutil

from evalplus.data.mbpp import mbpp_deserialize_inputs
from evalplus.eval import untrusted_check
from evalplus.gen.util import trusted_exec

from cases import CASES

tasks = {}
for name in ("humanevalplus_tasks.jsonl", "mbppplus_tasks.jsonl"):
    for line in open(name):
        task = json.loads(line)
        if task["task_id"].startswith("Mbpp/"):
            task["base_input"] = mbpp_deserialize_inputs(task["task_id"], task["base_input"])
            task["plus_input"] = mbpp_deserialize_inputs(task["task_id"], task["plus_input"])
        tasks[task["task_id"]] = task

with open("reference.jsonl", "w") as out:
    for task_id, code in CASES:
        task = tasks[task_id]
        dataset = "mbpp" if task_id.startswith("Mbpp/") else "humaneval"
        solution = code if code.startswith(task["prompt"]) else task["prompt"] + code
        verdict = {"task_id": task_id, "code": code}
        for part in ("base", "plus"):
            expected, times = trusted_exec(task["prompt"] + task["canonical_solution"], task[part + "_input"], task["entry_point"], record_time=True)
            status, details = untrusted_check(dataset, solution, task[part + "_input"], task["entry_point"], expected=expected, atol=task["atol"], ref_time=times, fast_check=False, min_time_limit=1.0, gt_time_limit_factor=4.0)
            verdict[part + "_status"] = status
            verdict[part + "_details"] = [int(d) for d in details]
        out.write(json.dumps(verdict) + "\n")
