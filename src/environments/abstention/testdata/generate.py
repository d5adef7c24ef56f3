#!/usr/bin/python3
"""Writes reference.json: what NeMo Gym's own abstention code (07d6b0d) answers on the cases below.

Run from the repository root with the host's python3 (stdlib only):
    python3 src/environments/abstention/testdata/generate.py
The functions and the default prompt are read from the NeMo Gym mirror by
scripts/nemo_gym_catalog/upstream.py, not copied. The answer scored is what AbstentionServer.verify
computes before its judge call (its boxed answer, else the whole text), restated from the functions
it calls; "abstains" is its normalised comparison with the default token.
"""
import json
import os
import sys
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts", "nemo_gym_catalog"))
import upstream  # noqa: E402

app = upstream.load("resources_servers/abstention/app.py")


def obj(value):
    if isinstance(value, dict):
        return SimpleNamespace(**{k: obj(v) for k, v in value.items()})
    if isinstance(value, list):
        return [obj(v) for v in value]
    return value


def answer(output):
    text = app["extract_text_from_response"](obj({"output": output}))
    boxed = app["extract_boxed_answer"](text)
    return boxed if boxed is not None else text


GRADES = ["A", "B", "C", " C\n", "Reasoning.\nA", "Reasoning.\n C ", "correct", "CORRECT", "NOT_ATTEMPTED", "INCORRECT", "a", "D", "none", "x\nB\n", "A or C"]

NORMALIZE = [
    "[IDK]", "idk", " IDK ", "I.D.K.", "the IDK", "[idk]!", "An IDK", "I don't know", "idk idk", "ÀB the", "the\u00a0an a", "x_y-z", "théâtre", "a\u0301", "", "  ", "Ransen Kamangar",
]

BOXED = [
    "\\boxed{Yes}", "\\boxed{[IDK]}", "text \\boxed{A} then \\boxed{B}", "\\boxed{\\frac{1}{2}}", "\\boxed{unclosed", "\\boxed{a}}", "no box",
    "\\boxed{}", "\\boxed{x} \\boxed{y", "\\boxed {spaced}", "\\boxed{{nested}}",
]

msg = lambda *texts, role="assistant": {"type": "message", "role": role, "content": [{"type": "output_text", "text": t} for t in texts]}
OUTPUTS = [
    [msg("\\boxed{Yes}")],
    [msg("<think>not sure</think>\\boxed{[IDK]}")],
    [msg("Reasoning</think> \\boxed{ [idk] }")],
    [msg("<think>\\boxed{Paris}</think>I do not know")],
    [msg("first \\boxed{A}"), msg("second, no box")],
    [msg("  plain answer  ")],
    [],
]

TEMPLATE = app["_DEFAULT_JUDGE_PROMPT_TEMPLATE"]
FILLS = [
    {"question": "Were they of the same nationality?", "target": "Yes", "predicted_answer": "{yes}"},
    {"question": "", "target": "", "predicted_answer": ""},
]
token = app["normalize_answer"]("[IDK]")

out = {
    "grades": [{"text": t, "grade": app["parse_judge_grade"](t)} for t in GRADES],
    "normalized": [{"text": t, "normalized": app["normalize_answer"](t)} for t in NORMALIZE],
    "boxed": [{"text": t, "boxed": app["extract_boxed_answer"](t)} for t in BOXED],
    "answers": [{"output": o, "answer": answer(o), "abstains": app["normalize_answer"](answer(o)) == token} for o in OUTPUTS],
    "template": TEMPLATE,
    "fills": [{"values": v, "prompt": TEMPLATE.format(**v)} for v in FILLS],
}
with open(os.path.join(HERE, "reference.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
    f.write("\n")
