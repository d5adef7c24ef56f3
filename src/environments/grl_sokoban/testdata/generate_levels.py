"""Writes levels.json: the levels NeMo Gym's grl_sokoban makes for a set of seeds and room shapes,
computed by NeMo Gym's own vendored generator (resources_servers/grl_sokoban/sokoban_env/generation.py
at 07d6b0d, read from a NeMo Gym checkout or git mirror) with host CPython `random` and numpy, seeded as
SokobanEnv.reset does. A level whose first attempt fails records the error instead (NeMo Gym then
retries with abs(hash(str(seed))) % 2**32, whose value depends on the process's str-hash secret; this
script must run with PYTHONHASHSEED=0, and records for such a level the retry seeds it took and the
level they gave: what a NeMo Gym server started with PYTHONHASHSEED=0 makes).

usage: PYTHONHASHSEED=0 python3 generate_levels.py /path/to/generation.py > levels.json
"""

import importlib.util
import json
import random
import os
import sys

import numpy as np

assert os.environ.get("PYTHONHASHSEED") == "0", "run with PYTHONHASHSEED=0"

spec = importlib.util.spec_from_file_location("generation", sys.argv[1])
generation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(generation)

# The example rows' levels, then a spread of seeds over the room shapes and box counts of NeMo Gym's
# generate_test_examples.py.
cases = [
    (84810, [5, 5], 1),
    (98293, [8, 8], 1),
    (30450, [6, 6], 1),
    (89987, [6, 7], 1),
    (78785, [6, 4], 1),
]
shapes = [[4, 4], [5, 5], [6, 6], [7, 7], [8, 8], [4, 6], [6, 4], [5, 6], [6, 5], [5, 7], [7, 5], [6, 7], [7, 6]]
boxes = [1, 1, 1, 2, 3]
for i in range(130):
    shape = shapes[i % len(shapes)]
    n = boxes[i % len(boxes)]
    if n >= (shape[0] * shape[1]) // 3:
        n = 1
    cases.append((1000 + i * 7919 % 100000, shape, n))
cases.append((0, [6, 6], 1))
cases.append((4294967295, [6, 6], 1))



def generate(seed, dim, num_boxes):
    random.seed(seed)
    np.random.seed(seed)
    room_fixed, room_state, _, _ = generation.generate_room(
        dim=tuple(dim),
        num_steps=int(1.7 * (dim[0] + dim[1])),
        num_boxes=num_boxes,
        search_depth=100,
    )
    return {
        "room_fixed": [[int(c) for c in row] for row in room_fixed.tolist()],
        "room_state": [[int(c) for c in row] for row in room_state.tolist()],
    }


out = []
for seed, dim, num_boxes in cases:
    entry = {"seed": seed, "dim_room": dim, "num_boxes": num_boxes}
    try:
        entry.update(generate(seed, dim, num_boxes))
    except (RuntimeError, RuntimeWarning) as error:
        entry["error"] = type(error).__name__
        # SokobanEnv.reset's fallback, as a PYTHONHASHSEED=0 process takes it.
        retry = seed
        entry["retry_seeds"] = []
        # Capped here: a shape that never yields a level (say, 3 boxes in a 4x4 room) makes NeMo Gym
        # recurse until Python's RecursionError.
        while len(entry["retry_seeds"]) < 20:
            retry = abs(hash(str(retry))) % (2**32)
            entry["retry_seeds"].append(retry)
            try:
                entry["retry_level"] = generate(retry, dim, num_boxes)
                break
            except (RuntimeError, RuntimeWarning):
                pass
    out.append(entry)

json.dump(out, sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
