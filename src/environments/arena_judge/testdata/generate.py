"""Fixtures for arena_judge's Arena-Elo port, computed by NeMo Gym's own code on the real libraries.

Runs NVIDIA-NeMo/Gym 07d6b0d's resources_servers/arena_judge/app.py and nemo_gym/reward_profile.py
(read from a git mirror at run time, not copied here) with numpy, pandas and scikit-learn. The
nemo_gym modules those files import for types only (server base classes, config types, the judge
call) are replaced by small stand-ins: none of them takes part in the metrics.

How it was made (Debian root with python3-numpy/pandas/sklearn, e.g. /tmp/ngpeer):
    chroot /tmp/ngpeer apt-get install -y python3-sklearn
    git --git-dir=<NeMo Gym mirror> archive 07d6b0d resources_servers/arena_judge nemo_gym/reward_profile.py | tar -x -C /tmp/ngpeer/tmp/ng
    cp generate.py ../data/example_rollouts.jsonl /tmp/ngpeer/tmp/ng/
    chroot /tmp/ngpeer sh -c 'cd /tmp/ng && python3 generate.py /tmp/ng elo.json'
    cp /tmp/ngpeer/tmp/ng/elo.json testdata/elo.json

Output (elo.json): library versions; `draws` (the row positions pandas' `sample(frac=1.0,
replace=True)` takes after np.random.seed(42), per table size); `sets` (battle sets: verdict pairs per
task, NeMo Gym's arena metrics, and the unrounded internals: the fitted Elo ratings, the bootstrap's
2.5/97.5 percentiles and how many rounds fitted); `compute_metrics` (the whole compute_metrics of the
recorded example rollouts).
"""
import json
import math
import random
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pydantic
import scipy
import sklearn

# scikit-learn 1.8+ warns that `penalty=None` is deprecated (same fit); keep the output readable.
warnings.simplefilter("ignore", FutureWarning)

root = Path(sys.argv[1])
out_path = sys.argv[2]


def stub(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


class Model(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow", arbitrary_types_allowed=True)


def _no_attr(name):
    raise AttributeError(name)


class SimpleResourcesServer:
    pass


stub("nemo_gym")
stub("orjson")
stub("wandb", Histogram=object)
stub("nemo_gym.global_config", AGENT_REF_KEY_NAME="agent_ref", ROLLOUT_INDEX_KEY_NAME="_ng_rollout_index", TASK_INDEX_KEY_NAME="_ng_task_index")
stub("nemo_gym.config_types", AggregateMetrics=Model, BaseNeMoGymCLIConfig=Model, ModelServerRef=Model)
stub("nemo_gym.base_resources_server", BaseResourcesServerConfig=Model, BaseRunRequest=Model, BaseVerifyRequest=Model, BaseVerifyResponse=Model, SimpleResourcesServer=SimpleResourcesServer)
stub("nemo_gym.judge", call_judge=None)
stub("nemo_gym.openai_utils", NeMoGymChatCompletion=Model, NeMoGymChatCompletionCreateParamsNonStreaming=Model)
stub("nemo_gym.prompt", PromptConfig=Model, load_prompt_config=None)
stub("nemo_gym.cli")
stub("nemo_gym.cli._compat", moved_attr_getter=lambda *a, **k: _no_attr)


def load(name, path):
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    return module


load("nemo_gym.reward_profile", root / "nemo_gym" / "reward_profile.py")
app = load("arena_app", root / "resources_servers" / "arena_judge" / "app.py")
Server = app.ArenaJudgeServer


def server(rounds=100, seed=42):
    s = object.__new__(Server)
    s.config = types.SimpleNamespace(arena_elo_bootstrap_rounds=rounds, arena_elo_bootstrap_seed=seed)
    return s


def clean(value):
    """JSON without NaN: NaN as the string "NaN"."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, (np.floating,)):
        return clean(float(value))
    if isinstance(value, (np.integer,)):
        return int(value)
    return value


# 1. pandas' bootstrap draws: positions of sample(frac=1.0, replace=True) after np.random.seed(42).
draws = []
for size in [1, 2, 3, 5, 8, 17, 64, 100, 1000]:
    np.random.seed(42)
    table = pd.DataFrame({"i": np.arange(size)})
    rounds = [table.sample(frac=1.0, replace=True)["i"].tolist() for _ in range(3)]
    draws.append({"size": size, "rounds": rounds})


# 2. Battle sets.
VERDICTS = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]


def internals(s, scores):
    battles, _ = Server._get_battles_from_judgment(scores)
    if battles.empty:
        return None
    winners = set(battles["winner"])
    if not (("model_a" in winners and "model_b" in winners) or "tie" in winners):
        return None
    online = Server._compute_mle_elo(battles)
    boot = s._bootstrap(battles)
    return {
        "elo": {m: float(online[m]) for m in online.index},
        "boot_rounds": int(len(boot)),
        "lower": {m: float(np.percentile(boot[m], 2.5)) for m in boot.columns},
        "upper": {m: float(np.percentile(boot[m], 97.5)) for m in boot.columns},
        "boot_candidate": [float(v) for v in boot["candidate"]],
    }


def battle_set(name, tasks, keep_boot=False):
    s = server()
    paired = [[Server._best_of_rollouts([r.get("verdict_gen_base") for r in t], reverse=False), Server._best_of_rollouts([r.get("verdict_base_gen") for r in t], reverse=True)] for t in tasks]
    inner = internals(server(), paired) if paired else None
    if inner is not None and not keep_boot:
        del inner["boot_candidate"]
    return {"name": name, "tasks": tasks, "metrics": s._compute_arena_elo_metrics(tasks), "internals": inner}


rng = random.Random(20261126)


def random_tasks(n_tasks, rollouts, p_none=0.05, categories=("hard_prompt", "creative_writing"), weights=None):
    tasks = []
    for _ in range(n_tasks):
        category = rng.choice(categories)
        task = []
        for _ in range(rollouts):
            pick = lambda: None if rng.random() < p_none else rng.choices(VERDICTS, weights=weights)[0]
            task.append({"verdict_gen_base": pick(), "verdict_base_gen": pick(), "category": category})
        tasks.append(task)
    return tasks


recorded = [json.loads(line) for line in (root / "example_rollouts.jsonl").read_text().splitlines() if line.strip()]
by_task = {}
for row in recorded:
    by_task.setdefault(row["_ng_task_index"], []).append(row)
recorded_tasks = [by_task[k] for k in sorted(by_task)]

t = lambda g, b, c="hard_prompt": [{"verdict_gen_base": g, "verdict_base_gen": b, "category": c}]
sets = [
    battle_set("recorded example rollouts", [[{k: r[k] for k in ("verdict_gen_base", "verdict_base_gen", "category")} for r in task] for task in recorded_tasks], keep_boot=True),
    battle_set("NeMo Gym test: mixed", [t("A>>B", "B>>A"), t("A=B", "A=B"), t("B>>A", "A>>B"), t("A>B", "B>A", "creative_writing"), t("B>A", "A>B", "creative_writing")]),
    battle_set("all losses (degenerate)", [t("B>>A", "A>>B"), t("B>>A", "A>>B")]),
    battle_set("all wins (degenerate)", [t("A>B", "B>A"), t("A>>B", "B>>A")]),
    battle_set("all invalid", [t(None, None)]),
    battle_set("ties only", [t("A=B", "A=B"), t("A=B", "A=B")]),
    battle_set("one win one loss (bootstrap rounds skipped)", [t("A>B", None), t("B>A", None)]),
    battle_set("no category", [[{"verdict_gen_base": "A>B", "verdict_base_gen": "A>B"}], [{"verdict_gen_base": "B>A", "verdict_base_gen": "A=B"}]]),
    battle_set("random 20 tasks x1", random_tasks(20, 1), keep_boot=True),
    battle_set("random 50 tasks x4 (best of rollouts)", random_tasks(50, 4, p_none=0.2)),
    battle_set("random 200 tasks x1, candidate strong", random_tasks(200, 1, weights=[5, 4, 2, 1, 1])),
    battle_set("random 200 tasks x2, candidate weak", random_tasks(200, 2, weights=[1, 1, 2, 4, 5], categories=("hard_prompt", "creative_writing", "math"))),
    battle_set("random 750 tasks x1", random_tasks(750, 1, p_none=0.01)),
]

full = server().compute_metrics(recorded_tasks)
result = {
    "generated_by": "src/environments/arena_judge/testdata/generate.py",
    "nemo_gym_commit": "07d6b0d",
    "versions": {"python": sys.version.split()[0], "numpy": np.__version__, "pandas": pd.__version__, "scikit-learn": sklearn.__version__, "scipy": scipy.__version__},
    "draws": draws,
    "sets": sets,
    "compute_metrics": full,
}
Path(out_path).write_text(json.dumps(clean(result), indent=1) + "\n")
print("wrote", out_path)
