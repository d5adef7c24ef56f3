#!/usr/bin/python3
"""Writes extract.json: NeMo Gym's own bunsenbench_chemistry_mcq functions (app.py at 07d6b0d) on the cases below.

Run from the repository root with the host's python3 (stdlib only: re, html, unicodedata):
    python3 src/environments/bunsenbench_chemistry_mcq/testdata/generate.py
The functions are read from the NeMo Gym mirror by scripts/nemo_gym_catalog/upstream.py, not copied;
`_get_allowed_letters_from_options`, which app.py imports from mcqa, is loaded from mcqa's app.py.
Records: normalize_chemistry_text and _metric_segment of strings; for each option set and response
text, extract_bunsen_answer (with the gold letter allowed, as verify() does); _expected_answer_letter
of expected answers; classify_error_mode of response shapes.
"""
import json
import os
import sys
from types import SimpleNamespace as NS

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts", "nemo_gym_catalog"))
import upstream  # noqa: E402

ns = upstream.load("resources_servers/bunsenbench_chemistry_mcq/app.py")
ns["_get_allowed_letters_from_options"] = upstream.load("resources_servers/mcqa/app.py")["_get_allowed_letters_from_options"]

STRINGS = [
    "H₂O", "H<sub>2</sub>O", "CO&#8322;", "Fe³⁺", "SO₄²⁻", "&amp;", "&amp", "&ampx", "&notin;", "&notit;", "&#x41;", "&#0;",
    "&#128;", "&#xD800;", "&#1114112;", "&#11;", "&#65", "a\u200bb", "µm", "μm", "ﬁ", "①", "Ｈ２Ｏ", "x × y", "1−2", "a  \n b",
    "&lt;choice&gt;", "CH₃–CH₃", "10⁻³ M", "½", "ℌ", "&NotEqualTilde;", "&unknown;", "&", "&#;", "&#xZ;", "\ufeffH2O", "Å",
]
SEGMENTS = ["general", " organic chem ", "a/b", "Ácido", "x  y\tz", "___", "", "p+q:r.s-t", "héllo wörld", 5, True]
OPTION_SETS = [
    [{"A": "OH-"}, {"B": "H2O"}, {"C": "H3O+"}, {"D": "O2"}],
    [{"A": "Fe³⁺"}, {"B": "Fe²⁺"}, {"C": "CO₂"}, {"D": "none of the above"}],
    [{"a": "alpha"}, {"b": None}, {"C": "gamma"}, {"EE": "epsilon"}],
]
TEXTS = [
    "", "<choice>H2O</choice>", "<choice>H₂O</choice>", "<CHOICE> B </choice>", "<answer>C</answer>", "<final_answer>(D)</final_answer>",
    "<choices><choice>OH-</choice><choice>H2O</choice></choices>", "<choices><choice>A</choice></choices>\n<choice>D</choice>",
    "\\boxed{B}", "\\boxed{\\text{H2O}}", "\\boxed {C}", "\\boxed{\\{D\\}}", "\\boxed{B", "Answer: B", "**Answer:** (C)",
    "1. Answer: D", "- answer: A.", "The correct answer is B.", "My answer is: H2O", "I choose option C", "I select choice D)",
    "Reasoning...\nB", "A\nreasoning", "Answer: B\nAnswer: C", "<choice>H2O</choice>\nAnswer: A", "Answer: A <choice>D</choice>",
    "answer: OH-", "Answer: Fe3+", "Answer: Fe^{3+}", "<choice>CO2</choice>", "<choice>co₂</choice>", "Answer: none of the above",
    "<choice>Xenon</choice>", "Option B", "B)", "(B) H2O", "B. because", "B: H2O", "The answer is b", "answer:b", "<response>'D'</response>",
    "\\boxed{\\mathrm{C}}", "`B`", "**B**", "<think>A</think>\nAnswer: C", "Answer: E", "<choice>alpha</choice>", "<choice>gamma</choice>",
    "Answer: EE", "Answer: ı", "Answer: ſ", "I'm sorry, but I can't help with that.", "<choice>", "答案: B", "Answer:\n\nB",
    "<final-answer>H3O+</final-answer>", "The answer is H2O\nor maybe D", "<answer>A</ANSWER>", "<Answer>B</answer>",
]
EXPECTED = ["B", " c ", "\\boxed{D}", "(a)", "H2O", "Fe²⁺", "CO2", "E", "none", "", "option C", "**B**"]

segments = [{"value": v, "segment": ns["_metric_segment"](v)} for v in SEGMENTS]
normalized = [{"text": s, "normalized": ns["normalize_chemistry_text"](s)} for s in STRINGS]
extractions = []
for options in OPTION_SETS:
    clean = ns["_options_from_body"](NS(options=options, choices=None))
    for text in TEXTS:
        allowed = ns["_get_allowed_letters_from_options"](clean)
        allowed.add("B")
        pred = ns["extract_bunsen_answer"](text.strip(), clean, allowed) if text.strip() else None
        extractions.append({"options": options, "gold": "B", "text": text, "pred": pred})
expected = []
for options in OPTION_SETS:
    clean = ns["_options_from_body"](NS(options=options, choices=None))
    for e in EXPECTED:
        expected.append({"options": options, "expected": e, "gold": ns["_expected_answer_letter"](e, clean)})
CHOICES = [["x", "y"], [{"letter": "q", "text": "Q text"}, {"label": "", "content": "second"}, {"id": "AB", "value": "v"}, {"text": "no letter"}, {"key": "z", "choice": 5}]]
from_choices = [{"choices": c, "options": ns["_options_from_body"](NS(options=None, choices=c))} for c in CHOICES]

def response(status=None, reason=None, item_status=None, refusal=False):
    parts = [NS(type="refusal", refusal="no")] if refusal else [NS(type="output_text", text="x")]
    return NS(status=status, incomplete_details=NS(reason=reason) if reason else None, output=[NS(type="message", status=item_status, content=parts)])

SHAPES = {"plain": {}, "incomplete": {"status": "incomplete"}, "max_tokens": {"reason": "max_output_tokens"}, "item_incomplete": {"item_status": "incomplete"}, "refusal_part": {"refusal": True}}
MODE_TEXTS = ["", "I'm sorry, but I cannot help", "As an AI model, I", "<think>still going", "<think>done</think> nothing", "<choice>Xenon</choice>",
              "<choices><choice>a</choice></choices>", "random prose", "I must decline", "i  won’t be able to provide", "İ cannot answer"]
modes = []
for shape, kwargs in SHAPES.items():
    for text in MODE_TEXTS:
        for pred in (None, "B", "C"):
            modes.append({"shape": shape, "text": text, "pred": pred, "mode": ns["classify_error_mode"](response(**kwargs), text, pred, "B")})

with open(os.path.join(HERE, "extract.json"), "w", encoding="utf-8") as f:
    json.dump({"normalized": normalized, "segments": segments, "extractions": extractions, "expected": expected, "from_choices": from_choices, "modes": modes}, f, ensure_ascii=False)
    f.write("\n")
