"""Fixture generator: runs NeMo Gym's own parsing functions (07d6b0d) on the cases below and writes
nemo_gym_parsing.json, which rubric.test.ts checks Gymkit's ports against.

The functions are taken from NeMo Gym's source (not copied here): `_extract_text_from_response` and
`_extract_verdict` of resources_servers/multichallenge/app.py and resources_servers/inverse_if/app.py,
found by name with `ast` and executed alone (they need only `re` and `json`). `py_sum` records
Python's own `sum()` of floats (compensated since 3.12; NeMo Gym requires 3.13).

How it was made (Python 3.14 in the Debian root /tmp/ngpeer):
  G="git --git-dir=/work/.mirror/NVIDIA-NeMo+Gym/repo"
  $G show 07d6b0d:resources_servers/multichallenge/app.py > /tmp/ngpeer/tmp/mc_app.py
  $G show 07d6b0d:resources_servers/inverse_if/app.py > /tmp/ngpeer/tmp/iif_app.py
  cp gen_nemo_gym_parsing.py /tmp/ngpeer/tmp/
  chroot /tmp/ngpeer python3 /tmp/gen_nemo_gym_parsing.py /tmp/mc_app.py /tmp/iif_app.py > nemo_gym_parsing.json
"""
import ast
import json
import re
import sys
from types import SimpleNamespace


def load(path, names):
    tree = ast.parse(open(path).read())
    module = ast.Module(body=[n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names], type_ignores=[])
    scope = {"re": re, "json": json, "List": list}
    exec(compile(module, path, "exec"), scope)
    return scope


def ns(value):
    if isinstance(value, dict):
        return SimpleNamespace(**{k: ns(v) for k, v in value.items()})
    if isinstance(value, list):
        return [ns(v) for v in value]
    return value


mc = load(sys.argv[1], {"_extract_text_from_response", "_extract_verdict"})
iif = load(sys.argv[2], {"_extract_text_from_response", "_extract_verdict"})


def msg(*texts, role="assistant"):
    return {"type": "message", "role": role, "content": [{"type": "output_text", "text": t} for t in texts]}


OUTPUTS = [
    [msg("Hello")],
    [msg("  Part one ", " part two  ")],
    [msg("<think>plan</think>Answer")],
    [msg("<thinking>a\nb</thinking>\n Answer \n")],
    [msg("reasoning without an opening tag</think>\nFinal")],
    [msg("pre</thinking>post")],
    [msg("<think>x</think>a</think>b")],
    [msg("<think>unclosed thinking")],
    [msg("first"), {"type": "reasoning", "summary": []}],
    [msg("first"), msg("second")],
    [msg("early"), {"type": "message", "role": "assistant", "content": None}],
    [msg("user text", role="user")],
    [{"type": "message", "role": "assistant", "content": "  plain string content  "}],
    [{"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}, {"type": "output_text", "text": "yes"}]}],
    [{"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c"}],
    [],
    [msg("\u3000wide space\u3000")],
    [msg("<THINK>caps</THINK>kept")],
]

IIF_VERDICTS = [
    '```json\n{\n  "result": "PASS",\n  "explanation": "ok"\n}\n```',
    '```json\n{"result": "FAIL", "explanation": "no"}\n```',
    '```\n{"result": " pass ", "explanation": "lower"}\n```',
    '```json\n{"result": "MAYBE"}\n```\n{"result": "FAIL", "explanation": "inline"}',
    '```json\n{"result": "PASS", "explanation": "a"}\n```\n```json\n{"result": "FAIL"}\n```',
    '```json\n{"result": "PASS",}\n```\nverdict: FAIL',
    'The answer: {"result": "pass", "explanation": "case"}',
    'The answer: {"Result": "PASS"} and nothing else',
    '{"explanation": "x", "result": "FAIL"}',
    '{"result": "PASS", "explanation": {"nested": 1}}',
    'Thinking...\nIt is PASS',
    'line1\nline2\nline3\nline4\nline5\nline6 PASS\n7\n8\n9\n10\n11',
    'FAIL\na\nb\nc\nd\nPASS is what I would say',
    'PASSAGE is fine',
    'Nothing decisive here.',
    '',
    'FAILED but PASS',
    '```json\n{"result": "PASS", "score": NaN, "explanation": "nan"}\n```',
    '```json\n{"result": 1}\n```\nFAIL',
    '{"result": "PASS", "explanation": "x"} {"result": "FAIL"}',
    '```json {"result": "FAIL", "explanation": "same line"} ```',
    'I pass on this.',
    '{"result": "FAIL"}',
]

MC_VERDICTS = [
    "Reasoning.\n[[YES]]",
    "[[NO]]",
    "[[YES]] at first, then [[NO]]",
    "[[NO]] at first, then [[YES]]",
    "No labels, but the last line says yes",
    "Last line:\nNO",
    "Last line:\nNothing",
    "Last line:\nnot sure",
    "",
    "   \n  ",
    "[[yes]]",
    "Maybe\nYES and NO",
    "[[YES]]\ntrailing no",
    "unknown\nKNOW",
]

out = {
    "python": sys.version.split()[0],
    "response_text": [
        {"output": o, "multichallenge": mc["_extract_text_from_response"](ns({"output": o}), True), "inverse_if": iif["_extract_text_from_response"](ns({"output": o}), True)}
        for o in OUTPUTS
    ],
    "inverse_if_verdict": [{"text": t, "verdict": list(iif["_extract_verdict"](t))} for t in IIF_VERDICTS],
    "multichallenge_verdict": [{"text": t, "verdict": mc["_extract_verdict"](t, "[[YES]]", "[[NO]]")} for t in MC_VERDICTS],
    "py_sum": [
        {"values": v, "sum": sum(v)}
        for v in [[0.1] * 10, [0.1, 0.2, 0.3], [1e100, 1.0, -1e100], [1.0, 0.0, 1.0], [0.7, 0.1, 0.1, 0.1], [], [2.5, 0.5, 0.25]]
    ],
}
json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
