#!/usr/bin/env python3
"""Writes scorer_cases.jsonl (gzipped as scorer_cases.jsonl.gz): (text, function_call_count, verifier) -> (reward, details) as NeMo Gym's
own citation_if scorer computes them at commit 07d6b0d.

The scorer and its three test modules are read from the NeMo Gym mirror with `git show` into a
temporary package, imported unmodified, and run on:
  - every call the hand-written gate tests make (test_citation_if.py), recorded while they run;
  - every cell of the generated reward-hack matrix (test_reward_hack_matrix.py);
  - the three residual-fuzz families at their seeds (test_residual_fuzz.py), every text they score;
  - Gymkit's own extra cases below (Unicode case folding, Python's \\w, odd verifier fields).

Usage: python3 generate_scorer_cases.py [--git-dir DIR] [--commit C] | gzip -9n > scorer_cases.jsonl.gz
"""

import argparse
import importlib
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--git-dir", default="/work/.mirror/NVIDIA-NeMo+Gym/repo")
parser.add_argument("--commit", default="07d6b0d")
args = parser.parse_args()

root = Path(tempfile.mkdtemp())
pkg = root / "resources_servers" / "citation_if"
(pkg / "tests").mkdir(parents=True)
for p in [root / "resources_servers", pkg, pkg / "tests"]:
    (p / "__init__.py").touch()
for rel in ["scorer.py", "tests/test_citation_if.py", "tests/test_reward_hack_matrix.py", "tests/test_residual_fuzz.py"]:
    src = subprocess.run(
        ["git", f"--git-dir={args.git_dir}", "show", f"{args.commit}:resources_servers/citation_if/{rel}"],
        check=True,
        capture_output=True,
    ).stdout
    (pkg / rel).write_bytes(src)
sys.path.insert(0, str(root))

scorer = importlib.import_module("resources_servers.citation_if.scorer")
real_score = scorer.score_citation_if
cases = []


def record(source):
    def wrapped(text, function_call_count, verifier):
        reward, details = real_score(text, function_call_count, verifier)
        cases.append(
            {
                "source": source,
                "text": text,
                "function_call_count": function_call_count,
                "verifier": json.loads(json.dumps(verifier)),
                "reward": reward,
                "details": details,
            }
        )
        return reward, details

    return wrapped


# 1. The hand-written gate tests: run each, recording every scorer call.
t = importlib.import_module("resources_servers.citation_if.tests.test_citation_if")
t.score_citation_if = record("test_citation_if")
for name in sorted(n for n in dir(t) if n.startswith("test_")):
    getattr(t, name)()

# 2. The reward-hack matrix.
m = importlib.import_module("resources_servers.citation_if.tests.test_reward_hack_matrix")
rec = record("test_reward_hack_matrix")
for granularity, grammar, name, text, v, required in m.CELLS:
    rec(text, 0, v)
    cases[-1]["cell"] = f"{granularity}-{grammar}-{name}"

# 3. The residual fuzz, all three families at their seeds.
f = importlib.import_module("resources_servers.citation_if.tests.test_residual_fuzz")
f.score_citation_if = record("test_residual_fuzz")
f.test_leak_mutations_all_score_zero()
f.test_benign_mutations_stay_compliant()
f.test_residual_property_holds_directly()

# 4. Gymkit's own: where a reimplementation outside Python is most likely to differ.
rec = record("gymkit")
base = {
    "type": "citation_if",
    "mode": "cite",
    "grammar": "cite_xml",
    "id_kind": "full_source",
    "id_regex": "citation_[0-9]+",
    "valid_id_set": ["citation_0", "citation_1", "citation_2"],
    "expected_ids": None,
    "min_valid_citations": 1,
}


def v(**kw):
    return {**base, **kw}


# Python's IGNORECASE folds dotless/dotted i, long s and the Kelvin sign into ASCII letters.
for text in [
    "Fact. <cite>citation_0</cite> C\u0131TATION_1",
    "Fact. <cite>citation_0</cite> c\u0130tation_1",
    "Fact. <cite>citation_0</cite> citation_\u017f",
    "Fact. <cite>citation_0</cite> citation_\u212a",
    "Fact. <cite>citation_0</cite> CITATION_X",
    "Fact. <cite>citation_0</cite> <C\u0130TE>citation_0</cite>",
    "Fact. <cite>citation_0</cite> <c\u0131te >",
    "Fact. <cite>citation_0</cite> </CITE\n>",
    "Fact. <cite>citation_0</cite> </cite\u3000>",
    "Fact. <cite>citation_0</cite> <citex>",
    "Fact. <cite>citation_0</cite> <cite\u00e9>",
    "Fact. <cite>citation_0</cite> <cite\u0301>",
    "Fact. <cite>citation_0</cite> citation_",
    "Fact. <cite>citation_0</cite> citation_\u00e9",
    "Fact. <cite>citation_0,citation_1</cite>",
    "Fact. <cite>citation_0, citation_1</cite>",
    "Fact. <cite>citation_0</cite><cite>citation_0</cite>",
]:
    rec(text, 0, v())
# Answer presence: Python's \w (any script's letters and digits, underscore), not JavaScript's ASCII \w.
for text in [
    "\u00e9 <cite>citation_0</cite>",
    "\u4e2d <cite>citation_0</cite>",
    "\u0663 <cite>citation_0</cite>",
    "\u00bd <cite>citation_0</cite>",
    "\u2167 <cite>citation_0</cite>",
    "_ <cite>citation_0</cite>",
    "\u0301 <cite>citation_0</cite>",
    "\U0001d400 <cite>citation_0</cite>",
    "\U0001f600 <cite>citation_0</cite>",
    "... <cite>citation_0</cite> !!!",
    "<cite>citation_0</cite>\n<cite>citation_1</cite>",
]:
    rec(text, 0, v())
for text in ['<cite index="citation_0">\u00e9</cite>', '<cite index="citation_0">\u2014</cite>', '<cite index="citation_0">a\nb</cite>',
             '<cite index="citation_0"></cite> <cite index="citation_1">x</cite>', '<cite index="citation_0,citation_1">x</cite>']:
    rec(text, 0, v(grammar="claim_wrap_xml"))
# Every grammar, including the holdouts, on a numeric and a snippet scheme.
for grammar in scorer.GRAMMAR_TEMPLATES:
    for text in ["A [citation_1] B", "A \u3010citation_1\u3011 B", "A [ref:citation_1] B", "A <<citation_1>> B", "A [web:citation_1] B",
                 "A (citation_1) B", "A [^citation_1] B", "A {{citation_1}} B", "A <ref|citation_1> B", "A [citation_1](http://x) B",
                 "A <cite>citation_1</cite> B", '<cite index="citation_1">A</cite>']:
        rec(text, 0, v(grammar=grammar))
        rec(text.replace("citation_1", "citation_1:snippet_3"), 0, v(grammar=grammar, id_kind="snippet", id_regex=None, valid_id_set=["citation_1:snippet_3"]))
# Verifier fields: defaults, nulls, numbers as floats or strings, empty sets, modes.
for over in [
    {"grammar": None}, {"grammar": "nope"}, {"id_regex": None}, {"id_regex": ""}, {"id_kind": "snippet", "id_regex": None},
    {"id_kind": "other", "id_regex": None}, {"valid_id_set": None}, {"valid_id_set": []}, {"min_valid_citations": 2},
    {"min_valid_citations": 2.0}, {"min_valid_citations": "0"}, {"min_valid_citations": 0}, {"expected_ids": []},
    {"expected_ids": ["citation_1", "citation_0"]}, {"expected_ids": ["citation_2"], "expected_slack": 0},
    {"expected_ids": ["citation_0"], "expected_slack": 0.0}, {"expected_ids": ["citation_0"], "expected_slack": "3"},
    {"mode": "no_cite"}, {"mode": "other"}, {"mode": None}, {"id_regex": "citation_[a-z]{2}\\d"}, {"id_regex": "(?:citation_\\w+)"},
]:
    for text in ["Fact. <cite>citation_0</cite>", "Fact. <cite>citation_0</cite> <cite>citation_1</cite>", "Fact.", "Fact. <cite></cite>",
                 "Fact. <cite>citation_ab1</cite>", "Fact. <cite>citation_\u0661</cite>", ""]:
        rec(text, 0, v(**over))
for text, calls in [("Fact. <cite>citation_0</cite>", 1), ("Fact. <cite>citation_0</cite>", 2), ("  \n\t ", 0), ("\u3000", 0), ("\u200b", 0)]:
    rec(text, calls, v())
    rec(text, calls, v(mode="no_cite"))
# Sorting of missed ids is by code point.
rec("Fact. <cite>citation_0</cite>", 0, v(id_regex="citation_.", valid_id_set=["citation_0"], expected_ids=["citation_0", "citation_\uff41", "citation_\U0001d400", "citation_b"]))

for case in cases:
    print(json.dumps(case, ensure_ascii=False))
print(f"{len(cases)} cases", file=sys.stderr)
