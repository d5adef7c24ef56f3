"""Fixture for nvarc.test.ts: NeMo Gym's own nvarc code (commit 07d6b0d, read from a NeMo Gym clone
with `git show`, never copied here): its problem.py Board and the parsing and subprocess functions of
its app.py, run by this Python (with pydantic and numpy installed) on testdata/cases.json. Writes
expected.json: for each case, the predicted grid (or null) and the reward NeMo Gym's verify gives.

Usage: python3 make_fixture.py /path/to/NVIDIA-NeMo/Gym/.git  (commit 07d6b0d)
"""
import ast
import asyncio
import json
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).parent
GIT_DIR = sys.argv[1]


def upstream(path: str) -> str:
    return subprocess.run(["git", "--git-dir", GIT_DIR, "show", f"07d6b0d:{path}"], check=True, capture_output=True, text=True).stdout


problem = types.ModuleType("problem")
exec(compile(upstream("resources_servers/nvarc/problem.py"), "problem.py", "exec"), problem.__dict__)

tree = ast.parse(upstream("resources_servers/nvarc/app.py"))
wanted = {"SUBPROCESS_TEMPLATE", "_strip_thinking", "_parse_grid", "_extract_python_code", "_execute_python"}
nodes = [n for n in tree.body if (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in wanted) or (isinstance(n, ast.Assign) and any(getattr(t, "id", None) in wanted for t in n.targets))]
app = {"re": re, "json": json, "sys": sys, "asyncio": asyncio, "List": List, "Optional": Optional, "Board": problem.Board, "ColorPalette": problem.ColorPalette}
exec(compile(ast.Module(body=nodes, type_ignores=[]), "app.py", "exec"), app)


def verify(case: dict) -> dict:
    text = case["text"].strip()  # _extract_assistant_text joins and strips
    if case["mode"] == "inductive":
        code = app["_extract_python_code"](text)
        predicted = None if code is None else asyncio.run(app["_execute_python"](code, case["test_input"], case.get("timeout", 30)))
    else:
        predicted = app["_parse_grid"](text)
    exact = predicted is not None and predicted == case["expected_output"]
    return {"predicted_output": predicted, "extraction_successful": predicted is not None, "exact_match": exact, "reward": 1.0 if exact else 0.0}


cases = json.loads((HERE / "cases.json").read_text())
out = {"python": sys.version.split()[0], "cases": [verify(c) for c in cases]}
(HERE / "expected.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
