# Generates recorded_inputs.jsonl: input rows for NeMo Gym's recorded rollouts (data/example_rollouts.jsonl).
# Those five rollouts answer tasks of NeMo Gym's training set (not in data/example.jsonl) and keep only
# the request and response, not the row's ground truth. Each prompt asks for one expression; its ground
# truth is that expression evaluated with NeMo Gym's own alternate-universe tools (the tools file at
# commit 07d6b0d), as NeMo Gym's dataset builds it. id, depth and breadth are placeholders (unread by verify).
#   python3 generate_recorded_inputs.py /path/to/math_advanced_calculations_tools.py ../data/example_rollouts.jsonl > recorded_inputs.jsonl
import json
import sys

t = {}
exec(compile(open(sys.argv[1], encoding="utf-8").read(), "tools.py", "exec"), t)

# The expression each recorded prompt names, written with the tools (checked against the prompt below).
EXPRESSIONS = {
    "sin(4.0)": lambda: t["sin"](4.0),
    "8.0 ** 8.0": lambda: t["power"](8.0, 8.0),
    "(6.0 + 10.0)": lambda: t["add"](6.0, 10.0),
    "cos((6.0 - 2.0))": lambda: t["cos"](t["subtract"](6.0, 2.0)),
    "sin(log(2.0, 2.0))": lambda: t["sin"](t["log"](2.0, 2.0)),
}
DEPTH = {"sin(4.0)": 1, "8.0 ** 8.0": 1, "(6.0 + 10.0)": 1, "cos((6.0 - 2.0))": 2, "sin(log(2.0, 2.0))": 2}

for index, line in enumerate(l for l in open(sys.argv[2], encoding="utf-8") if l.strip()):
    rollout = json.loads(line)
    prompt = rollout["responses_create_params"]["input"][-1]["content"]
    expression = prompt.removeprefix("Get me the value for ").removesuffix(" using only the given tools.")
    value = EXPRESSIONS[expression]()
    row = {
        "responses_create_params": rollout["responses_create_params"],
        "ground_truth": json.dumps([value]),
        "id": 1000 + index,
        "depth": DEPTH[expression],
        "breadth": 1,
        "_ng_task_index": index,
        "_ng_rollout_index": 0,
    }
    print(json.dumps(row))
