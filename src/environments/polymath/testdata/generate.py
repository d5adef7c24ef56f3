# Generates reference.json: NeMo Gym's own metric functions (07d6b0d) on verify responses made up
# here: compute_pass_majority_metrics, compute_subset_metrics and highest_k_metrics from
# nemo_gym/reward_profile.py, and PolyMath's compute_metrics / get_key_metrics /
# _compute_weighted_pass_majority_metrics from resources_servers/polymath/app.py. The functions are
# lifted out of the two files with `ast` (their module imports — pandas, fastapi, nemo_gym — are not
# needed) and run with the standard library.
#   python3 generate.py NEMO_GYM/nemo_gym/reward_profile.py NEMO_GYM/resources_servers/polymath/app.py \
#     ../data/example_rollouts.jsonl > reference.json
import ast
import json
import math
import re
import sys
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

namespace = {"math": math, "re": re, "Counter": Counter, "Any": Any, "Callable": Callable, "Dict": Dict, "List": List, "Optional": Optional, "Tuple": Tuple, "Union": Union}


def lift(path, names):
    tree = ast.parse(open(path, encoding="utf-8").read())
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in names and node.name not in found:
            node.decorator_list = []
            found[node.name] = node
    module = ast.Module(body=[found[n] for n in names], type_ignores=[])
    exec(compile(module, path, "exec"), namespace)


lift(sys.argv[1], ["compute_pass_majority_metrics", "compute_subset_metrics", "highest_k_metrics"])
lift(sys.argv[2], ["compute_metrics", "get_key_metrics", "_compute_weighted_pass_majority_metrics"])


def math_score_fn(r):
    scores = {}
    if "library_reward" in r:
        scores["symbolic_accuracy"] = r["library_reward"]
    if "judge_evaluations" in r and r["judge_evaluations"] is not None:
        scores["judge_accuracy"] = r["reward"]
    return scores


class Server:
    _math_score_fn = staticmethod(math_score_fn)
    _compute_weighted_pass_majority_metrics = staticmethod(namespace["_compute_weighted_pass_majority_metrics"])
    compute_metrics = namespace["compute_metrics"]
    get_key_metrics = namespace["get_key_metrics"]


def row(task, rollout, reward, answer, weight, language, judged=False):
    return {
        "_ng_task_index": task,
        "_ng_rollout_index": rollout,
        "reward": reward,
        "library_reward": reward if not judged else 0.0,
        "judge_evaluations": [{}] if judged else None,
        "extracted_answer": answer,
        "weight": weight,
        "language": language,
    }


SCENARIOS = {
    "one_rollout_each": [
        [row(0, 0, 1.0, "4", 1.0, "en")],
        [row(1, 0, 1.0, "7", 2.0, "en")],
        [row(2, 0, 0.0, "50", 4.0, "zh")],
        [row(3, 0, 1.0, "30", 8.0, "zh")],
        [row(4, 0, 1.0, "144", 1.0, "ja")],
    ],
    "four_rollouts": [
        [row(0, 0, 1.0, "4", 1.0, "en"), row(0, 1, 0.0, "5", 1.0, "en"), row(0, 2, 1.0, "4", 1.0, "en"), row(0, 3, 0.0, None, 1.0, "en")],
        [row(1, 0, 0.0, "6", 4.0, "de"), row(1, 1, 0.0, "8", 4.0, "de"), row(1, 2, 1.0, "7", 4.0, "de"), row(1, 3, 0.0, "8", 4.0, "de")],
        [row(2, 0, 0.0, None, None, "de"), row(2, 1, 0.0, None, None, "de"), row(2, 2, 0.0, "1", None, "de"), row(2, 3, 1.0, "2", None, "de")],
        [row(3, 0, 1.0, "x", 8.0, None), row(3, 1, 1.0, "x", 8.0, None), row(3, 2, 1.0, "x", 8.0, None), row(3, 3, 1.0, "x", 8.0, None)],
        [row(4, 0, 0.0, "a", 0.0, "en"), row(4, 1, 1.0, "b", 0.0, "en", judged=True), row(4, 2, 0.0, "a", 0.0, "en"), row(4, 3, 1.0, "b", 0.0, "en", judged=True)],
    ],
    "uneven_rollouts": [
        [row(0, 0, 1.0, "1", 2.0, "fr"), row(0, 1, 1.0, "1", 2.0, "fr"), row(0, 2, 0.0, "2", 2.0, "fr")],
        [row(1, 0, 0.0, "3", 1.0, "fr")],
        [row(2, 0, 1.0, "9", 4.0, "sw"), row(2, 1, 0.0, "8", 4.0, "sw")],
    ],
}

# NeMo Gym's recorded rollouts of the example rows (data/example_rollouts.jsonl), one task per line.
if len(sys.argv) > 3:
    recorded = [json.loads(line) for line in open(sys.argv[3], encoding="utf-8") if line.strip()]
    SCENARIOS["example_rollouts"] = [
        [{k: r[k] for k in ("reward", "library_reward", "judge_evaluations", "extracted_answer", "weight", "language")} | {"_ng_task_index": i, "_ng_rollout_index": 0}]
        for i, r in enumerate(recorded)
    ]

out = {}
server = Server()
for name, tasks in SCENARIOS.items():
    metrics = server.compute_metrics(tasks)
    per_sample = metrics.pop("per_sample_aggregate")
    out[name] = {"tasks": tasks, "metrics": metrics, "per_sample_aggregate": per_sample, "key_metrics": server.get_key_metrics(metrics)}
json.dump({"source": "NVIDIA-NeMo/Gym 07d6b0d nemo_gym/reward_profile.py + resources_servers/polymath/app.py", "python": sys.version.split()[0], "scenarios": out}, sys.stdout, indent=1)
print()
