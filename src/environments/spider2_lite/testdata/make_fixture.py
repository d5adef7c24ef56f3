"""Fixture for spider2_lite.test.ts: NeMo Gym's own spider2_lite code (commit 07d6b0d, read from a
NeMo Gym clone with `git show`, never copied here) run by CPython's sqlite3 on testdata/schema.sql.
Writes expected.json: for each case of cases.json, what NeMo Gym's verify decides.

Usage: python3 make_fixture.py /path/to/NVIDIA-NeMo/Gym/.git  (commit 07d6b0d)
"""
import ast
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Optional

HERE = Path(__file__).parent
GIT_DIR = sys.argv[1]


def upstream(path: str) -> str:
    return subprocess.run(["git", "--git-dir", GIT_DIR, "show", f"07d6b0d:{path}"], check=True, capture_output=True, text=True).stdout


# eval_utils.py imports ray for remote execution; a stand-in decorator is enough to load the
# comparison and the synchronous execute_sqlite, which is all this uses.
ray = types.ModuleType("ray")
ray.remote = lambda *a, **k: (lambda f: f)
sys.modules["ray"] = ray
eval_utils = types.ModuleType("eval_utils")
exec(compile(upstream("resources_servers/spider2_lite/eval_utils.py"), "eval_utils.py", "exec"), eval_utils.__dict__)

app_tree = ast.parse(upstream("resources_servers/spider2_lite/app.py"))
nodes = [n for n in app_tree.body if isinstance(n, ast.FunctionDef) and n.name == "extract_sql_from_response"]
app = {"re": re, "Optional": Optional}
exec(compile(ast.Module(body=nodes, type_ignores=[]), "app.py", "exec"), app)

cases = json.loads((HERE / "cases.json").read_text())


def verify(db: Path, case: dict) -> dict:
    # NeMo Gym's verify, step for step (app.py Spider2LiteResourcesServer.verify).
    generated = case["text"]
    if not generated:
        return {"extracted_sql": None, "execution_match": False, "failure_reason": "no_sql_extracted", "reward": 0.0}
    extracted = app["extract_sql_from_response"](generated)
    if not extracted:
        return {"extracted_sql": None, "execution_match": False, "failure_reason": "no_sql_extracted", "reward": 0.0}
    ignore_order = case.get("ignore_order", True)
    if case.get("gold_sql"):
        gold = eval_utils.execute_sqlite(db, case["gold_sql"])
        pred = eval_utils.execute_sqlite(db, extracted) if gold is not None else None
        if gold is None or pred is None:
            match, reason = False, "execution_error"
        else:
            match = eval_utils.compare_multi_result_sets([gold], pred, multi_condition_cols=case.get("condition_cols") or [], ignore_order=ignore_order)
            reason = "none" if match else "execution_error"
    else:
        pred = eval_utils.execute_sqlite(db, extracted)
        if pred is None:
            match, reason = False, "execution_error"
        else:
            gold_sets = [[tuple(row) for row in gold] for gold in case["gold_result"]]
            match = eval_utils.compare_multi_result_sets(gold_sets=gold_sets, pred=pred, multi_condition_cols=case.get("condition_cols"), ignore_order=ignore_order)
            reason = "none" if match else "execution_error"
    return {"extracted_sql": extracted, "execution_match": match, "failure_reason": reason, "reward": 1.0 if match else 0.0}


with tempfile.TemporaryDirectory() as tmp:
    db = Path(tmp) / "shop.sqlite"
    conn = sqlite3.connect(str(db))
    conn.executescript((HERE / "schema.sql").read_text())
    conn.close()
    out = {"sqlite_version": sqlite3.sqlite_version, "python": sys.version.split()[0], "cases": [verify(db, c) for c in cases]}
(HERE / "expected.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
