"""Fixture for arc_agi.test.ts: NeMo Gym's own grid reader (`_parse_grid` of resources_servers/arc_agi/
app.py at commit 07d6b0d, read from a NeMo Gym clone with `git show`, never copied here) run by this
CPython on testdata/cases.json. Writes expected.json: the grid read from each text, or null.

Usage: python3 make_fixture.py /path/to/NVIDIA-NeMo/Gym/.git  (commit 07d6b0d)
"""
import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).parent
source = subprocess.run(["git", "--git-dir", sys.argv[1], "show", "07d6b0d:resources_servers/arc_agi/app.py"], check=True, capture_output=True, text=True).stdout
nodes = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "_parse_grid"]
app = {"re": re, "json": json, "List": List, "Optional": Optional}
exec(compile(ast.Module(body=nodes, type_ignores=[]), "app.py", "exec"), app)

cases = json.loads((HERE / "cases.json").read_text())
out = {"python": sys.version.split()[0], "grids": [app["_parse_grid"](c["text"]) for c in cases]}
(HERE / "expected.json").write_text(json.dumps(out, indent=1) + "\n")
