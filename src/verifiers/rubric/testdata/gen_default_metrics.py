"""Fixture generator: NeMo Gym's default /aggregate_metrics (07d6b0d nemo_gym/reward_profile.py,
compute_aggregate_metrics without compute_metrics/get_key_metrics overrides, as multichallenge and
inverse_if leave it) on each environment's data/example_rollouts.jsonl. Writes default_metrics.json.

reward_profile.py is read from a NeMo Gym checkout at run time (not copied here); the nemo_gym modules
it imports for types and the CLI (config types, global config names, wandb, orjson) are replaced by
small stand-ins that take no part in the numbers.

How it was made (Python 3.14 with pandas 2.3 in the Debian root /tmp/ngpeer):
  git --git-dir=/work/.mirror/NVIDIA-NeMo+Gym/repo archive 07d6b0d nemo_gym/reward_profile.py | tar -x -C /tmp/ngpeer/tmp/ng
  cp gen_default_metrics.py /tmp/ngpeer/tmp/ng/
  cp src/environments/inverse_if/data/example_rollouts.jsonl /tmp/ngpeer/tmp/ng/inverse_if.jsonl
  cp src/environments/multichallenge/data/example_rollouts.jsonl /tmp/ngpeer/tmp/ng/multichallenge.jsonl
  chroot /tmp/ngpeer sh -c 'cd /tmp/ng && python3 gen_default_metrics.py inverse_if.jsonl multichallenge.jsonl' > default_metrics.json
"""
import json
import sys
import types
from pathlib import Path

import pydantic


def stub(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


class Model(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow", arbitrary_types_allowed=True)


class Histogram:
    def __init__(self, *args, **kwargs):
        pass


def _no_attr(name):
    raise AttributeError(name)


stub("nemo_gym")
stub("orjson")
stub("wandb", Histogram=Histogram)
stub("nemo_gym.global_config", AGENT_REF_KEY_NAME="agent_ref", ROLLOUT_INDEX_KEY_NAME="_ng_rollout_index", TASK_INDEX_KEY_NAME="_ng_task_index")
stub("nemo_gym.config_types", AggregateMetrics=Model, BaseNeMoGymCLIConfig=Model)
stub("nemo_gym.cli")
stub("nemo_gym.cli._compat", moved_attr_getter=lambda *a, **k: _no_attr)

path = Path("nemo_gym/reward_profile.py")
module = types.ModuleType("nemo_gym.reward_profile")
sys.modules["nemo_gym.reward_profile"] = module
exec(compile(path.read_text(), str(path), "exec"), module.__dict__)

out = {"python": sys.version.split()[0], "metrics": {}}
for file in sys.argv[1:]:
    rows = [json.loads(line) for line in open(file) if line.strip()]
    result = module.compute_aggregate_metrics(rows)
    out["metrics"][Path(file).stem] = {"agent_metrics": result.agent_metrics, "key_metrics": result.key_metrics}
json.dump(out, sys.stdout, indent=1, default=float)
