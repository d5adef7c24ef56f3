#!/usr/bin/python3
"""Writes parse.json: NeMo Gym's own ragtruth parsing (app.py at 07d6b0d) on the responses below.

Run from the repository root with the host's python3 (stdlib only):
    python3 src/environments/ragtruth/testdata/generate.py
The functions are read from the NeMo Gym mirror by scripts/nemo_gym_catalog/upstream.py, not copied.
For each (text, think tag): _strip_think, _strip_json_fence of that, whether _parse_response gives an
object, _has_hallucination, and the `extracted` field verify() writes.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts", "nemo_gym_catalog"))
import upstream  # noqa: E402

ns = upstream.load("resources_servers/ragtruth/app.py")

TEXTS = [
    "", "   ", '{"hallucination list": []}', '{"hallucination list": ["a", "b"]}', '{"hallucination list": "a"}',
    '{"other": 1}', "[1, 2]", "not json", '<think>hmm {"hallucination list": []}</think>{"hallucination list": ["x"]}',
    'reasoning without open tag</think>\n{"hallucination list": ["y"]}', '<think>\n{"hallucination list": []}',
    '<THINK>a</THINK>{"hallucination list": [1]}', '```json\n{"hallucination list": ["z"]}\n```',
    '```\n{"hallucination list": []}\n```', 'Here:\n```json\n{"hallucination list": ["q"]}\n```\nDone.',
    '```json\n```', '```json```', 'text ``` more', '{"hallucination list": ["é", "\\u00e9", "tab\\there"]}',
    '{"hallucination list": [1.0, 1e16, NaN, -Infinity, 12345678901234567890, true, null, {"k": [1]}]}',
    '{"hallucination list": ["a"], "hallucination list": []}', '{"hallucination list": ["line\nbreak"]}',
    '<think>x</think><think>y</think>{"hallucination list": []}', 'a</think>b</think>{"hallucination list": ["w"]}',
    '```JSON\r\n{"hallucination list": ["crlf"]}\r\n```', ' \n{\n  "hallucination list": [\n    "s"\n  ]\n}\n',
    '<reasoning>r</reasoning>{"hallucination list": ["r"]}', '{"hallucination list": ["' + "long " * 150 + '"]}',
    '{"hallucination list": ["quote \\" and backslash \\\\"]}', '{"hallucination list": ["\\u0001"]}',
]

out = []
for tag in ("think", "reasoning"):
    for text in TEXTS:
        stripped = ns["_strip_think"](text, tag=tag)
        parsed = ns["_parse_response"](text, think_tag=tag)
        lst = parsed.get("hallucination list") if isinstance(parsed, dict) else None
        out.append({
            "text": text, "tag": tag, "stripped": stripped, "unfenced": ns["_strip_json_fence"](stripped),
            "parsed": parsed is not None, "pred_halu": ns["_has_hallucination"](parsed),
            "extracted": json.dumps(lst, ensure_ascii=False)[:500] if isinstance(lst, list) else "",
        })

with open(os.path.join(HERE, "parse.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
    f.write("\n")
