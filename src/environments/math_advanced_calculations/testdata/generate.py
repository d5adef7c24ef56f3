# Generates tools.json: NeMo Gym's "alternate universe" calculator tools
# (resources_servers/math_advanced_calculations/math_advanced_calculations_tools.py at commit 07d6b0d,
# read from a NeMo Gym checkout) run by the host's Python on a seeded grid of arguments, with what
# NeMo Gym's route answers: the solution, or 500 where the call raises (wrong arguments, math domain,
# division by zero, overflow), returns a complex number, or returns a value JSON cannot carry (inf, nan).
#   python3 generate.py /path/to/math_advanced_calculations_tools.py > tools.json
import json
import math
import random
import sys

tools = {}
exec(compile(open(sys.argv[1], encoding="utf-8").read(), "tools.py", "exec"), tools)
NAMES = ["add", "subtract", "multiply", "divide", "sin", "cos", "power", "log", "pi", "negate", "return_constant"]
PARAMS = {"add": "ab", "subtract": "ab", "multiply": "ab", "divide": "ab", "power": "ab", "log": ("a", "base"), "sin": ("radians",), "cos": ("radians",), "pi": (), "negate": ("a",), "return_constant": ("a",)}


def call(name, args):
    try:
        result = tools[name](**args)
    except Exception as error:  # the route turns every exception into a 500
        return {"status": 500, "error": type(error).__name__}
    if isinstance(result, complex):
        return {"status": 500, "error": "complex"}
    if math.isinf(result) or math.isnan(result):
        return {"status": 500, "error": "not JSON"}
    return {"status": 200, "solution": result}


rng = random.Random(15)
values = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -0.5, -1.5, -2.5, 3.0, 10.0, 1e-300, 1e300, 1e308, -8.0]
values += [float(rng.randint(1, 10)) for _ in range(20)]
values += [round(rng.uniform(-10, 10), rng.randint(0, 17)) for _ in range(40)]
cases = []
for name in NAMES:
    params = PARAMS[name]
    if not params:
        cases.append({"tool": name, "args": {}})
        continue
    for _ in range(150):
        cases.append({"tool": name, "args": {p: rng.choice(values) for p in params}})
# Calls NeMo Gym rejects for their argument names.
cases += [
    {"tool": "add", "args": {"a": 1.0}},
    {"tool": "add", "args": {"a": 1.0, "b": 2.0, "radians": 3.0}},
    {"tool": "sin", "args": {"a": 1.0}},
    {"tool": "pi", "args": {"a": 1.0}},
    {"tool": "log", "args": {"a": 8.0, "b": 2.0}},
]
for case in cases:
    case.update(call(case["tool"], case["args"]))
json.dump({"source": "NVIDIA-NeMo/Gym 07d6b0d resources_servers/math_advanced_calculations/math_advanced_calculations_tools.py", "python": sys.version.split()[0], "cases": cases}, sys.stdout, indent=0)
print()
