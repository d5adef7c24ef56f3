"""Fixture for frontierscience_judge's parsers: NeMo Gym's own functions, run on the cases below.

Made with: python3 generate.py /work/.mirror/NVIDIA-NeMo+Gym/repo > parsers.json
(host Python 3; only `re` is needed). It reads resources_servers/frontierscience_judge/app.py at
NeMo Gym commit 07d6b0d from the git mirror given, executes only its module-level regexes and the
pure functions `_strip_thinking_traces`, `parse_judgement` and `parse_rubric_score`, and prints
each case with their results.
"""
import json
import re
import subprocess
import sys

source = subprocess.run(
    ["git", f"--git-dir={sys.argv[1]}", "show", "07d6b0d:resources_servers/frontierscience_judge/app.py"],
    check=True, capture_output=True, text=True,
).stdout
start = source.index("_THINK_TAG_RE = ")
end = source.index("def extract_text_from_response")
pure = source[start:end] + source[source.index("def parse_judgement"):source.index("def _resolve_prompt_path")]
namespace = {"re": re, "Optional": object}
exec("from typing import Optional\n" + pure, namespace)

TEXTS = [
    "Judgement: YES", "judgement: yes", "Judgement:NO", "Judgement:   no\n", "Judgement: YES\nJudgement: NO",
    "Judgement: NO ... Judgement: YES", "Judgement - YES", "JUDGEMENT: Yes.", "judgement: yesterday", "", "No marker",
    "Judgement: YE", "Judgement:\nYES", "Judgement: ＹＥＳ", "Judgement:\u00a0YES",
    "Score: 7/10", "Score: 7 out of 10", "FINAL_SCORE[7] / MAX_POSSIBLE_SCORE[10]", "final score [8.5]/score[10]",
    "Score: 7", "score = 6.5", "Score: 3/0", "Score: -2/10", "Score: +.5/1", "Score: 12/10", "Points: 7/10",
    "Score: 4/10\nrationale\nScore: 8/10", "Score: 8/10\nThe final total\n", "Total: 9/10 score", "Score: ٧/١٠",
    "Score: 7/10\r\nJudgement: YES", "score: 1_0", "SCORE: 10 OUT OF 10", "score 5/10 and 6/10", "Score: 7\u2028Judgement: NO",
    "<think>reasoning</think>Answer 42", "<thinking>a</thinking>  B  ", "stray</think> C", "x<think>a</think>y<think>b</think>z",
    "before</thinking>after</think>end", "<think>unclosed", "  \u00a0spaced\u3000 ", "<think>a\nb</think>\n\nfinal",
]

cases = []
for text in TEXTS:
    cases.append({
        "text": text,
        "judgement": namespace["parse_judgement"](text),
        "rubric_score": namespace["parse_rubric_score"](text),
        "rubric_score_max_5": namespace["parse_rubric_score"](text, max_score=5.0),
        "stripped": namespace["_strip_thinking_traces"](text),
    })
json.dump(cases, sys.stdout, ensure_ascii=False, indent=1)
print()
