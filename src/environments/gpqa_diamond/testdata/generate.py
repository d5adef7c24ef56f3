#!/usr/bin/python3
"""Writes extract_letter.json: NeMo Gym's own gpqa_diamond `extract_letter` (07d6b0d) on each case below.

Run from the repository root with the host's python3 (stdlib only):
    python3 src/environments/gpqa_diamond/testdata/generate.py
The function is read from the NeMo Gym mirror by scripts/nemo_gym_catalog/upstream.py, not copied.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts", "nemo_gym_catalog"))
import upstream  # noqa: E402

extract_letter = upstream.load("resources_servers/gpqa_diamond/app.py")["extract_letter"]

CASES = [
    "\\boxed{D}", "\\boxed{ B }", "\\boxed{b}", "\\boxed{(C)}", "\\boxed{\\text{B}}", "\\boxed{\\textbf{A}}",
    "\\boxed{A} then \\boxed{C}", "\\boxed{C} then \\boxed{x}", "\\boxed{A or B}", "\\boxed{AB}", "\\boxed{}",
    "\\boxed{10^{-4} eV}", "\\boxed{É}", "\\boxed{Ａ}", "\\boxed{ÉA}", "\\boxed{C\n}", "\\boxed{option D is right}",
    "\\boxed{B", "Answer: C", "answer: c", "**Answer:** D", "**Answer**: B", "_Answer_:A", "Answer:\n\nB",
    "Answer: Cat", "Answer: C.", "Answer: C1", "Answer: A\nAnswer: B", "Final Answer: B", "ANSWER: b)",
    "Answer: ı", "Answer: İ", "Answer: ıx", "Answer: Bı", "Answer: ſ", "Answer: K", "Answer: é", "Answer:   * C", "Answer: *** C", "No letter here",
    "\\boxed{x} Answer: D", "\\boxed{é} Answer: D", "\\boxed{Ä} Answer: D", "Answer: B \\boxed{C}",
    "The answer is \\boxed{\\mathrm{C}}", "\\boxed{A_1}", "\\boxed{I think A, but B}", "\\boxed{_A_}",
    "\\boxed{ÀB C}", "\\boxed{αB}", "\\boxed{٣B}", "Answer:\u00a0C", "Answer:\u2003C", "Answer: C_",
]

out = [{"text": t, "letter": extract_letter(t)} for t in CASES]
with open(os.path.join(HERE, "extract_letter.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
    f.write("\n")
