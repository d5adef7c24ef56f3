#!/usr/bin/env python3
"""Writes test_metadata.jsonl: small CCC test files of the same shape as NeMo Gym's CCC_TEST_FILE
(made for Gymkit's tests; the problems, tests and scripts are Gymkit's own). Run: python3 make_test_metadata.py"""
import json
from pathlib import Path

COMPILE = """#!/bin/bash
# Compiles the submission graders/{pid}.cpp with the problem's grader files.
problem={pid}
if [ ! -f checker/checker.cpp ]; then echo "No checker found at $PWD/checker/checker.cpp"; fi
if [ ! -f graders/$problem.cpp ]; then echo "Submission graders/$problem.cpp missing" >&2; exit 1; fi
g++ -std=gnu++17 -O2 -pipe -o $problem graders/$problem.cpp 2>compile_errors.txt
if [ $? -ne 0 ]; then cat compile_errors.txt >&2; exit 1; fi
echo "Compiled $problem from graders/$problem.cpp successfully"
echo "Manager files: $(ls graders | tr '\\n' ' ' | sed 's/ $//')"
"""

# Exact comparison (whitespace-insensitive); prints the test score on stdout, a message on stderr.
RUN_DIFF = """#!/bin/bash
problem={pid}
limit=$(awk "BEGIN {{ print 1 * ${{TIME_LIMIT_SCALE:-1}} }}")
timeout "$limit" ./$problem < input.txt > output.txt 2> /dev/null
status=$?
if [ $status -eq 124 ]; then echo 0; echo "Time limit exceeded" >&2; exit 0; fi
if [ $status -ne 0 ]; then echo 0; echo "Runtime error (exit $status)" >&2; exit 0; fi
if diff -bq output.txt correct_output.txt > /dev/null; then echo 1; echo "Output is correct" >&2
else echo 0; echo "Output isn't correct (diff)" >&2; fi
"""

# Partial credit: first line right = 0.5, both lines right = 1.
RUN_PARTIAL = """#!/bin/bash
problem={pid}
timeout 2 ./$problem < input.txt > output.txt 2> /dev/null || {{ echo 0; echo "Runtime error" >&2; exit 0; }}
got1=$(sed -n 1p output.txt | tr -d '[:space:]'); want1=$(sed -n 1p correct_output.txt | tr -d '[:space:]')
got2=$(sed -n 2p output.txt | tr -d '[:space:]'); want2=$(sed -n 2p correct_output.txt | tr -d '[:space:]')
if [ "$got1" = "$want1" ] && [ "$got2" = "$want2" ]; then echo 1; echo "Output is correct" >&2
elif [ "$got1" = "$want1" ]; then echo 0.5; echo "Output is partially correct" >&2
else echo 0; echo "Output isn't correct" >&2; fi
"""


def mex(values):
    seen = set(values)
    m = 0
    while m in seen:
        m += 1
    return m


def mex_tests():
    cases = {
        "sample-01": [0, 1, 3],
        "sample-02": [1, 2],
        "secret-01": [],
        "secret-02": [0],
        "secret-03": [5, 4, 3, 2, 1, 0],
        "secret-04": [0, 0, 0, 2],
        "secret-05": [7],
        "secret-06": list(range(100)),
        "secret-07": [1, 0, 3, 2, 6, 5],
        "secret-08": [2, 2, 1],
        "secret-09": list(range(0, 50, 2)),
    }
    tests = {}
    for name, values in cases.items():
        tests[name] = {
            "input": f"{len(values)}\n{' '.join(map(str, values))}\n",
            "output": f"{mex(values)}\n",
            "group": "sample" if name.startswith("sample") else "secret",
        }
    return tests


def pair_tests():
    cases = {"1-01": (1, 2), "1-02": (10, 20), "2-01": (3000000, 4000000), "2-02": (99999, 100001)}
    return {
        name: {"input": f"{a} {b}\n", "output": f"{a + b}\n{a * b}\n", "group": "secret"}
        for name, (a, b) in cases.items()
    }


def grader_files(pid, task_type="Batch"):
    return [["graders/grader_config.json", json.dumps({"task_type": task_type})]]


makingmexes_tests = mex_tests()
makingmexes = {
    "name": "A-makingmexes",
    "compile": COMPILE.format(pid="makingmexes"),
    "run": RUN_DIFF.format(pid="makingmexes"),
    "grader_files": grader_files("makingmexes"),
    "subtasks": {
        "all_tests": {
            "aggregation": "min",
            "score": 11,
            "score_precision": 0,
            "test_names": list(makingmexes_tests),
        }
    },
    "all_tests": makingmexes_tests,
}

pairs_tests = pair_tests()
pairs = {
    "name": "pairs",
    "compile": COMPILE.format(pid="pairs"),
    "run": RUN_PARTIAL.format(pid="pairs"),
    "grader_files": grader_files("pairs"),
    "subtasks": {
        "small": {"aggregation": "min", "score": 30, "score_precision": 0, "test_names": ["1-01", "1-02"]},
        "full": {"aggregation": "min", "score": 70, "score_precision": 1, "test_names": ["1-01", "1-02", "2-01", "2-02"]},
        "count": {"aggregation": "sum_tests", "test_names": ["1-01", "1-02", "2-01", "2-02"]},
    },
    "all_tests": pairs_tests,
}

# The older per-subtask shape (each subtask carries the scripts and its tests).
legacy_problem = {
    "easy": {
        "grader_files": grader_files("hello"),
        "compile": COMPILE.format(pid="hello"),
        "run": RUN_DIFF.format(pid="hello"),
        "score": 4,
        "tests": {"sample-1": {"input": "", "output": "hello\n"}, "e-1": {"input": "", "output": "hello\n"}},
    },
    "hard": {
        "grader_files": grader_files("hello"),
        "compile": COMPILE.format(pid="hello"),
        "run": RUN_DIFF.format(pid="hello"),
        "subtask_score": 6,
        "tests": {"e-1": {"input": "", "output": "hello\n"}, "h-1": {"input": "x\n", "output": "hello\n"}},
    },
}

lines = [
    {"competition_id": "usaco25", "metadata": {"makingmexes": makingmexes}},
    {"competition": "ioi_mini", "problems": {"pairs": pairs}},
    {"competition_id": "old_contest", "metadata": {"hello": legacy_problem}},
    # A map of competitions as one line: ccc_eval.py walks the list of lines, so this line adds nothing.
    {"ignored_contest": {"pairs": pairs}},
]
out = Path(__file__).with_name("test_metadata.jsonl")
out.write_text("".join(json.dumps(line) + "\n" for line in lines))
print(f"wrote {out}")
