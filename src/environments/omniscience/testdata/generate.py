#!/usr/bin/python3
"""Writes reference.json: what NeMo Gym's own omniscience code (07d6b0d) answers on the cases below.

Run from the repository root with the host's python3 (stdlib + PyYAML):
    python3 src/environments/omniscience/testdata/generate.py
Functions and the server's compute_metrics/get_key_metrics are read from the NeMo Gym mirror by
scripts/nemo_gym_catalog/upstream.py and upstream_class.py, not copied. The answer judged is what
OmniscienceServer.verify computes before its judge call, restated here from its two calls of
extract_text_from_response (strip_thinking False and True) and its opened/closed check.
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

APP = "resources_servers/omniscience/app.py"
app = upstream.load(APP)
profile = upstream_class.load_functions("nemo_gym/reward_profile.py", ["compute_pass_majority_metrics", "highest_k_metrics"])
Server = upstream_class.load_class(APP, "OmniscienceServer", {**profile, "List": list})
extract = app["extract_text_from_response"]


def obj(value):
    if isinstance(value, dict):
        return SimpleNamespace(**{k: obj(v) for k, v in value.items()})
    if isinstance(value, list):
        return [obj(v) for v in value]
    return value


def generation(output):
    response = obj({"output": output})
    raw = extract(response, strip_thinking=False)
    text = extract(response)
    opened = ("<think>" in raw) or ("<thinking>" in raw)
    closed = ("</think>" in raw) or ("</thinking>" in raw)
    return "" if opened and not closed else text


GRADES = [
    "A", "B", "C", "D", " D\n", "A: CORRECT", "Reasoning.\nC", "Reasoning.\n  D  ", "The answer is correct", "correct",
    "I'd say D, maybe C", "Grade: B or A", "none", "", "a", "E", "CORRECT", "NOT_ATTEMPTED", "PARTIAL_ANSWER", "x\nA\n",
]

msg = lambda *texts, role="assistant": {"type": "message", "role": role, "content": [{"type": "output_text", "text": t} for t in texts]}
OUTPUTS = [
    [msg("Paris")],
    [msg("<think>reasoning</think>Paris")],
    [msg("  <thinking>a</thinking> B <think>c</think> ")],
    [msg("reasoning without opening tag</think>\nAnswer")],
    [msg("<think>cut off mid thought")],
    [msg("<thinking>cut off")],
    [msg("x</thinking>y</think>z")],
    [msg("<think>a</think>b</think>c")],
    [msg("first"), msg("<think>r</think>", "second")],
    [msg("no tags at all, long answer")],
    [],
]

prompt = yaml.safe_load(upstream.source("resources_servers/omniscience/prompts/judge.yaml"))["user"]
FILLS = [
    {"question": "What is the speed of light?", "expected_answer": "299792458", "generation": "{c} = 299792458 m/s"},
    {"question": "", "expected_answer": "", "generation": ""},
]

rollouts = [json.loads(line) for line in open(os.path.join(HERE, "..", "data", "example_rollouts.jsonl"), encoding="utf-8")]

# Three tasks, three rollouts each: every verdict, repeated answers, one row without a verdict.
def task(*pairs):
    return [{"verdict": v, "extracted_answer": a} if v is not None else {"extracted_answer": a} for v, a in pairs]


SYNTHETIC = [
    task(("correct", "1989"), ("incorrect", "1990"), ("correct", "1989")),
    task(("incorrect", "3"), ("incorrect", "3"), ("partial", "ASC 606")),
    task(("not_attempted", ""), (None, "x"), ("not_attempted", "")),
]
ALL_CORRECT = [task(("correct", "a")), task(("correct", "b"))]


def metrics_of(tasks):
    server = Server()
    metrics = server.compute_metrics(tasks)
    agent = {"mean/reward": 0.5, "mean/input_tokens": 10.0, **metrics}
    return {"metrics": metrics, "key_metrics": server.get_key_metrics(agent)}


out = {
    "grades": [{"text": t, "grade": app["parse_judge_grade"](t)} for t in GRADES],
    "answers": [{"output": o, "answer": generation(o)} for o in OUTPUTS],
    "prompt": prompt,
    "fills": [{"values": v, "prompt": prompt.format(**v)} for v in FILLS],
    "recorded": {
        "grades": [app["parse_judge_grade"](r["judge_output"]) for r in rollouts],
        "answers": [generation(r["response"]["output"]) for r in rollouts],
        "metrics_as_recorded": metrics_of([[r] for r in sorted(rollouts, key=lambda r: r["_ng_task_index"])]),
    },
    "synthetic": {"tasks": SYNTHETIC, **metrics_of(SYNTHETIC)},
    "all_correct": {"tasks": ALL_CORRECT, **metrics_of(ALL_CORRECT)},
}
with open(os.path.join(HERE, "reference.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
    f.write("\n")
