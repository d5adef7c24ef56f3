#!/usr/bin/python3
"""Writes answers.json: NeMo Gym's own spartqa answer reading (app.py at 07d6b0d) on the cases below.

Run from the repository root with the host's python3 (stdlib only):
    python3 src/environments/spartqa/testdata/generate.py
The functions are read from the NeMo Gym mirror by scripts/nemo_gym_catalog/upstream.py, not copied.
For each response text: _extract_answer, its _label_key and its match_label against each option set.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts", "nemo_gym_catalog"))
import upstream  # noqa: E402

ns = upstream.load("resources_servers/spartqa/app.py")

OPTION_SETS = [
    ["a small blue square", "a big blue square"],
    ["the big blue circle", "the yellow triangle"],
    ["a triangle in block B", "a big blue triangle in block B"],
    ["Both of them", "a box"],
    [],
]
TEXTS = [
    "", "Final answer: both of them", "Final answer: neither", "final answer: None.", "Final Answer - a big blue square",
    "**Final answer:** the big blue circle", "Final answer: <candidate answer>\nFinal answer: the yellow triangle",
    "Final answer: a small blue square or a big blue square", "I think it is a big blue square.", "The answer is a box",
    "Selected answer: DK", "Answer: both", "answer is: a triangle in block B", "The final answer would be both objects",
    "selected option is none of the objects", "<think>Final answer: a box</think>Final answer: a small blue square",
    "<|channel>thought about it<channel|>Answer: the big blue circle", "Thinking Process:\nstep 1\na big blue square",
    "analysis: ...\nmore\nboth", "We need to check.\nnone of them", "Just one line: a big blue triangle in block B",
    "- * a small blue square", "**a big blue square**", "\"the yellow triangle\"", "Final answer:\n\nboth of them",
    "Final answer: \n- both", "Answer:", "Final answer: both of them!!!", "Final answer: Both", "FINAL ANSWER: NONE OF THEM",
    "Final answer: a big blue triangle in block B", "Final answer: a triangle in block B", "line one\r\nFinal answer: both",
    "x\u2028Final answer: neither", "Final answer: the   big  blue circle", "answer - the yellow triangle", "Final answer: é",
    "Final answer: dont know", "Final answer: don't know", "final answer", "Answer\nboth", "</think>Final answer: both",
    "The answer is the big blue circle. Final answer: the yellow triangle", "> Final answer: a box", "# Final answer: a box",
]

out = []
for text in TEXTS:
    answer = ns["_extract_answer"](text)
    out.append({
        "text": text, "answer": answer, "key": ns["_label_key"](answer), "normalized": ns["_normalize"](answer),
        "matches": [{"options": opts, "labels": ns["candidate_labels"](opts), "match": ns["match_label"](answer, ns["candidate_labels"](opts))} for opts in OPTION_SETS],
    })

with open(os.path.join(HERE, "answers.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False)
    f.write("\n")
