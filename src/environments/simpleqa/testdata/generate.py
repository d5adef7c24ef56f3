#!/usr/bin/python3
"""Writes reference.json: what NeMo Gym's own simpleqa code (07d6b0d) answers on the cases below.

Run from the repository root with the host's python3 (stdlib + PyYAML):
    python3 src/environments/simpleqa/testdata/generate.py
Functions and the server's compute_metrics/get_key_metrics are read from the NeMo Gym mirror by
scripts/nemo_gym_catalog/upstream.py and upstream_class.py, not copied. Response objects are the
rollouts' dicts seen through attribute access (NeMo Gym reads them with getattr).
"""
import json
import os
import sys
from types import SimpleNamespace

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts", "nemo_gym_catalog"))
import upstream  # noqa: E402
import upstream_class  # noqa: E402

APP = "resources_servers/simpleqa/app.py"
app = upstream.load(APP)
profile = upstream_class.load_functions("nemo_gym/reward_profile.py", ["compute_pass_majority_metrics", "highest_k_metrics"])
Server = upstream_class.load_class(APP, "SimpleQAServer", {**profile, "List": list})


def obj(value):
    if isinstance(value, dict):
        return SimpleNamespace(**{k: obj(v) for k, v in value.items()})
    if isinstance(value, list):
        return [obj(v) for v in value]
    return value


GRADES = [
    "A", "B", "C", "  B  ", "A: CORRECT", "B - INCORRECT", "C, NOT_ATTEMPTED", "Some reasoning\nA", "The grade is A based on analysis",
    "no clear grade here", "After reviewing the answer, the grade is B.", "Because of X.\nB", "because of x.\nb", "grade: b then C",
    "Correct", "INCORRECT", "NOT_ATTEMPTED", "the answer\n  C  ", "x\n", "\u00a0B\u00a0", "\n\nB\n\n", "a", "D", "d\nThe grade: C and A",
]

msg = lambda *texts, role="assistant": {"type": "message", "role": role, "content": [{"type": "output_text", "text": t} for t in texts]}
RESPONSES = [
    [msg("Paris")],
    [msg("  <think>reasoning</think>Answer  ")],
    [msg("first"), msg("second", " part")],
    [msg("answer"), {"type": "reasoning", "summary": []}],
    [msg("answer"), msg()],
    [msg("user text", role="user")],
    [{"type": "message", "role": "assistant", "content": "plain string content"}],
    [{"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}],
    [],
]

prompt = yaml.safe_load(upstream.source("resources_servers/simpleqa/prompts/judge.yaml"))["user"]
FILLS = [
    {"question": "What is the capital of France?", "expected_answer": "Paris", "generation": "It is {Paris}."},
    {"question": "", "expected_answer": "", "generation": ""},
]

rollouts = [json.loads(line) for line in open(os.path.join(HERE, "..", "data", "example_rollouts.jsonl"), encoding="utf-8")]


def verdicts(rows):
    return [[{"verdict": v, "extracted_answer": a} if v is not None else {"extracted_answer": a} for v, a in task] for task in rows]


# Three tasks, three rollouts each: mixed verdicts, repeated and missing answers, one without a verdict.
SYNTHETIC = verdicts([
    [("correct", "Paris"), ("incorrect", "Lyon"), ("correct", "Paris")],
    [("not_attempted", "I don't know"), ("incorrect", "1990"), (None, "1989")],
    [("incorrect", "liver"), ("incorrect", "liver"), ("not_attempted", None)],
])


def metrics_of(tasks):
    server = Server()
    metrics = server.compute_metrics(tasks)
    agent = {"mean/reward": 0.5, "mean/input_tokens": 10.0, **metrics}
    return {"metrics": metrics, "key_metrics": server.get_key_metrics(agent)}


out = {
    "grades": [{"text": t, "grade": app["parse_judge_grade"](t)} for t in GRADES],
    "texts": [{"output": o, "text": app["extract_text_from_response"](obj({"output": o}))} for o in RESPONSES],
    "prompt": prompt,
    "fills": [{"values": v, "prompt": prompt.format(**v)} for v in FILLS],
    "recorded": {
        "grades": [app["parse_judge_grade"](r["judge_output"]) for r in rollouts],
        "extracted": [app["extract_text_from_response"](obj(r["response"])) for r in rollouts],
        "metrics_as_recorded": metrics_of([[r] for r in rollouts]),
    },
    "synthetic": {"tasks": SYNTHETIC, **metrics_of(SYNTHETIC)},
}
with open(os.path.join(HERE, "reference.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
    f.write("\n")
