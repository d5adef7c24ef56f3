"""Writes tetris_games.json.gz: games played by NeMo Gym's own TetrisEnv (NVIDIA-NeMo/Gym 07d6b0d
resources_servers/grl_tetris/tetris_env/tetris_env.py) under real CPython `random` and numpy, and raw
`random.randint` draws, for grl_tetris.test.ts to replay against the TypeScript port.

    python3 make_tetris_games.py [path/to/tetris_env.py]

Without a path the file is read from the NeMo Gym mirror with git. gymnasium is stubbed: the env uses it
only for an unused action-space object.
"""

import gzip
import json
import random
import subprocess
import sys
import types
from pathlib import Path

import numpy as np


def load_env_source() -> str:
    if len(sys.argv) > 1:
        return Path(sys.argv[1]).read_text()
    return subprocess.run(
        ["git", "--git-dir=/work/.mirror/NVIDIA-NeMo+Gym/repo", "show",
         "07d6b0d07b22fcf530b4c211dae2ee23100428e4:resources_servers/grl_tetris/tetris_env/tetris_env.py"],
        check=True, capture_output=True, text=True,
    ).stdout


gym = types.ModuleType("gymnasium")
gym.spaces = types.SimpleNamespace(Discrete=lambda *a, **k: None)
sys.modules["gymnasium"] = gym
module = types.ModuleType("tetris_env")
exec(compile(load_env_source(), "tetris_env.py", "exec"), module.__dict__)
TetrisEnv = module.TetrisEnv

# random.randint as the game calls it, straight after random.seed(seed).
draws = []
for seed in [0, 1, 31, 60494, 15443, 77287, 63486, 73016, 2**31, 2**32 - 1]:
    rng = random.Random(seed)
    picker = random.Random(seed + 1)
    calls = []
    for _ in range(300):
        a = picker.randint(0, 3)
        b = a + picker.choice([0, 1, 2, 3, 5, 7, 15, 16, 17, 31, 33, 100, 1000])
        calls.append([a, b, rng.randint(a, b)])
    draws.append({"seed": seed, "calls": calls})

games = []
picker = random.Random(2026)
configs = []
for process_seed in [31, 0, 12345]:
    for box_type in [0, 1, 2, 3]:
        for dims in [(4, 4), (5, 5), (6, 4), (3, 6), (2, 2), (1, 3)]:
            for seed in [60494, 15443, 0, 2**32 - 1, None]:
                configs.append((process_seed, box_type, dims, seed))
for process_seed, box_type, (w, h), seed in configs:
    random.seed(process_seed)  # the process's global `random`, as the server would find it
    np.random.seed(process_seed)
    try:
        env = TetrisEnv({"dim_x": w, "dim_y": h, "box_type": box_type})
        first = env.reset(seed=seed)
    except ValueError as error:  # e.g. a two-wide piece on a one-wide board
        games.append({"process_seed": process_seed, "box_type": box_type, "dims": [w, h], "seed": seed, "error": str(error)})
        continue
    steps = []
    for _ in range(200):
        action = picker.choice([0, 0, 1, 1, 2, 2, 2, 2, 2] + ([5] if picker.random() < 0.01 else []))
        obs, reward, done, info = env.step(action)
        steps.append({"action": action, "observation": obs, "reward": float(reward), "done": bool(done),
                      "info": {k: (v.item() if isinstance(v, np.generic) else v) for k, v in info.items()}})
        if done:
            break
    games.append({"process_seed": process_seed, "box_type": box_type, "dims": [w, h], "seed": seed,
                  "observation": first, "steps": steps, "shape_counts": list(env._shape_counts)})

out = Path(__file__).with_name("tetris_games.json.gz")
out.write_bytes(gzip.compress((json.dumps({"python": sys.version.split()[0], "numpy": np.__version__, "randint": draws, "games": games}, separators=(",", ":")) + "\n").encode(), mtime=0))
print(f"{len(games)} games, {sum(len(g.get('steps', [])) for g in games)} steps -> {out}")
