# Writes HumanEval-RandomSpanInfilling.jsonl, the small HumanEval-Infilling-shaped split the code_fim
# tests use (Gymkit's own file, not HumanEval-Infilling's): RandomSpanInfilling/HumanEval/0-4/1 carry the
# prefix and suffix shown in NeMo Gym's data/example.jsonl prompts, with hand-written tests; one more
# task exercises the time limit. Run: python3 make_tasks.py
import json, re

rows = [json.loads(l) for l in open("../data/example.jsonl")]
TESTS = {
    "has_close_elements": "def check(candidate):\n    assert candidate([1.0, 2.0, 3.0], 0.5) == False\n    assert candidate([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) == True\n",
    "separate_paren_groups": "def check(candidate):\n    assert candidate('(()()) ((())) () ((())()())') == ['(()())', '((()))', '()', '((())()())']\n",
    "truncate_number": "def check(candidate):\n    assert candidate(3.5) == 0.5\n    assert abs(candidate(1.33) - 0.33) < 1e-6\n",
    "below_zero": "def check(candidate):\n    assert candidate([1, 2, -4, 5]) == True\n    assert candidate([1, 2, 3]) == False\n",
    "mean_absolute_deviation": "def check(candidate):\n    assert abs(candidate([1.0, 2.0, 3.0, 4.0]) - 1.0) < 1e-6\n",
}
MIDDLES = {
    "has_close_elements": " idx != idx2:\n                distance = abs(elem - elem2)\n                if",
    "truncate_number": "ber ",
}
tasks = []
for row in rows:
    text = row["responses_create_params"]["input"][0]["content"]
    prefix = re.search(r"### Prefix\n\n```python\n(.*?)\n```\n\n### Suffix", text, re.S).group(1)
    suffix = re.search(r"### Suffix\n\n```python\n(.*?)\n```\n\n### Answer", text, re.S).group(1)
    entry = re.search(r"\ndef (\w+)\(", prefix).group(1)
    tasks.append({"task_id": row["verifier_metadata"]["task_id"], "entry_point": entry, "prompt": prefix, "suffix": suffix,
                  "canonical_solution": MIDDLES.get(entry, ""), "test": TESTS[entry]})
tasks.append({"task_id": "RandomSpanInfilling/HumanEval/900/1", "entry_point": "spin",
              "prompt": "def spin(n):\n", "suffix": "    return n\n", "canonical_solution": "    n = n + 0\n",
              "test": "def check(candidate):\n    assert candidate(3) == 3\n"})
with open("HumanEval-RandomSpanInfilling.jsonl", "w") as f:
    f.writelines(json.dumps(t) + "\n" for t in tasks)
