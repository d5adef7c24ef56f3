# Writes the small EvalPlus-shaped task files the evalplus tests use (Gymkit's own tasks, not EvalPlus
# data): HumanEval/0-4 carry the prompts of NeMo Gym's data/example.jsonl rows with hand-written
# canonical solutions and inputs; the others exercise evalplus' special cases. Run: python3 make_tasks.py
import json, re

examples = [json.loads(l) for l in open("../data/example.jsonl")]
prompts = {}
for row in examples:
    text = row["responses_create_params"]["input"][0]["content"]
    prompts[row["verifier_metadata"]["task_id"]] = re.search(r"complete code:\n(.*)\n\nPlease continue", text, re.S).group(1)


def task(task_id, entry, prompt, canonical, base, plus, atol=0):
    return {"task_id": task_id, "prompt": prompt, "entry_point": entry, "canonical_solution": canonical,
            "base_input": base, "plus_input": plus, "atol": atol, "contract": ""}


humaneval = [
    task("HumanEval/0", "has_close_elements", prompts["HumanEval/0"],
         "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n",
         [[[1.0, 2.0, 3.0], 0.5], [[1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3]],
         [[[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05], [[], 1.0], [[1.5], 0.1], [[1.0, 1.0], 0.0]]),
    task("HumanEval/1", "separate_paren_groups", prompts["HumanEval/1"],
         "    groups, depth, current = [], 0, ''\n    for c in paren_string:\n        if c == ' ':\n            continue\n"
         "        current += c\n        depth += 1 if c == '(' else -1\n        if depth == 0:\n            groups.append(current)\n"
         "            current = ''\n    return groups\n",
         [["(()()) ((())) () ((())()())"]], [["() (()) ((()))"], [""], ["(( )) ()"]]),
    task("HumanEval/2", "truncate_number", prompts["HumanEval/2"], "    return number % 1.0\n",
         [[3.5], [1.33]], [[123.456], [0.001], [7.0]]),
    task("HumanEval/3", "below_zero", prompts["HumanEval/3"],
         "    total = 0\n    for op in operations:\n        total += op\n        if total < 0:\n            return True\n    return False\n",
         [[[1, 2, 3]], [[1, 2, -4, 5]]], [[[]], [[-1]], [[5, -5, 0]]]),
    task("HumanEval/4", "mean_absolute_deviation", prompts["HumanEval/4"],
         "    m = sum(numbers) / len(numbers)\n    return sum(abs(x - m) for x in numbers) / len(numbers)\n",
         [[[1.0, 2.0, 3.0, 4.0]]], [[[1.0]], [[-1.0, 1.0]], [[0.1, 0.2, 0.7]]]),
    # evalplus' find_zero oracle: a root within atol passes the check but is never recorded.
    task("HumanEval/32", "find_zero",
         "import math\n\n\ndef poly(xs: list, x: float):\n    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])\n\n\n"
         "def find_zero(xs: list):\n    \"\"\" Return x such that poly(xs, x) = 0. \"\"\"\n",
         "    lo, hi = -1000.0, 1000.0\n    for _ in range(200):\n        mid = (lo + hi) / 2\n"
         "        if (poly(xs, lo) > 0) == (poly(xs, mid) > 0):\n            lo = mid\n        else:\n            hi = mid\n    return lo\n",
         [[[1, 2]], [[-6, 11, -6, 1]]], [[[2, -1]]], atol=1e-6),
    # A task whose answers are tolerated within atol.
    task("HumanEval/900", "third", "def third(x: float) -> float:\n    \"\"\" x divided by 3. \"\"\"\n",
         "    return x / 3\n", [[1.0], [2.0]], [[10.0], [0.5]], atol=1e-3),
]
mbpp = [
    # Mbpp/2 (similar_elements): tuple arguments, answers compared as sets.
    task("Mbpp/2", "similar_elements", "\"\"\"\nWrite a function to find the shared elements from the given two lists.\n\"\"\"\n",
         "def similar_elements(test_tup1, test_tup2):\n  return tuple(set(test_tup1) & set(test_tup2))\n",
         [[[3, 4, 5, 6], [5, 7, 4, 10]], [[1, 2, 3, 4], [5, 4, 3, 7]]], [[[11, 12, 14, 13], [17, 15, 14, 13]]]),
    # Mbpp/252: a complex number stored as a string.
    task("Mbpp/252", "convert", "\"\"\"\nWrite a python function to convert complex numbers to polar coordinates.\n\"\"\"\n",
         "import cmath\ndef convert(numbers):\n  return cmath.polar(numbers)\n", [["1"], ["4"]], [["(1+2j)"]]),
]
with open("humanevalplus_tasks.jsonl", "w") as f:
    f.writelines(json.dumps(t) + "\n" for t in humaneval)
with open("mbppplus_tasks.jsonl", "w") as f:
    f.writelines(json.dumps(t) + "\n" for t in mbpp)
