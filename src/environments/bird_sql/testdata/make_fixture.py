"""Fixture for bird_sql.test.ts: NeMo Gym's own bird_sql code (commit 07d6b0d, read from a NeMo Gym
clone with `git show`, never copied here) run by CPython's sqlite3 on a small database built from the
example rows' `sql_context` (the schema and sample rows BIRD shows the model, with the "..." lines
dropped). Writes expected.json: for each case, what NeMo Gym's verify decides.

Usage: python3 make_fixture.py /path/to/NVIDIA-NeMo/Gym/.git  (commit 07d6b0d)
"""
import ast
import asyncio
import json
import sqlite3
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).parent
GIT_DIR = sys.argv[1]
COMMIT = "07d6b0d"


def upstream(path: str) -> str:
    return subprocess.run(["git", "--git-dir", GIT_DIR, "show", f"{COMMIT}:{path}"], check=True, capture_output=True, text=True).stdout


# eval_utils.py imports only the standard library: load it as a module.
eval_utils = types.ModuleType("eval_utils")
exec(compile(upstream("resources_servers/bird_sql/eval_utils.py"), "eval_utils.py", "exec"), eval_utils.__dict__)

# app.py needs NeMo Gym's server classes; take only the extraction helpers (and their imports).
app_tree = ast.parse(upstream("resources_servers/bird_sql/app.py"))
wanted = {"_NO_ANSWER_FILLER", "has_sql_codeblock", "extract_sql_from_response"}
nodes = [n for n in app_tree.body if (isinstance(n, ast.FunctionDef) and n.name in wanted) or (isinstance(n, ast.Assign) and any(getattr(t, "id", None) in wanted for t in n.targets))]
app = {"re": __import__("re"), "Optional": __import__("typing").Optional}
exec(compile(ast.Module(body=nodes, type_ignores=[]), "app.py", "exec"), app)

rows = [json.loads(line) for line in (HERE.parent / "data" / "example.jsonl").read_text().splitlines() if line.strip()]
rollouts = [json.loads(line) for line in (HERE.parent / "data" / "example_rollouts.jsonl").read_text().splitlines() if line.strip()]
cases = json.loads((HERE / "cases.json").read_text())


def build_db(path: Path, sql_context: str) -> None:
    script = "\n".join(line for line in sql_context.splitlines() if line.strip() != "...")
    with sqlite3.connect(str(path)) as conn:
        conn.executescript(script)
    conn.close()


def verify(db: Path, text: str, gt_sql: str) -> dict:
    # NeMo Gym's verify, step for step (app.py BirdSqlResourcesServer.verify).
    extracted = app["extract_sql_from_response"](text)
    had = app["has_sql_codeblock"](text)
    match, _g, _p, err = asyncio.run(eval_utils.execute_and_compare(db, gt_sql, extracted, asyncio.Semaphore(1), 30.0))
    if err == "gold_sql_error":
        reason, em = "gold_execution_error", False
    elif err == "pred_sql_error":
        reason, em = ("no_sql_extracted" if not had else "execution_error"), False
    else:
        em = match
        reason = "none" if match else ("no_sql_extracted" if not had else "execution_error")
    return {"extracted_sql": extracted, "had_codeblock": had, "execution_match": em, "failure_reason": reason, "reward": 1.0 if em else 0.0}


with tempfile.TemporaryDirectory() as tmp:
    db = Path(tmp) / "california_schools.sqlite"
    build_db(db, rows[0]["sql_context"])
    out = {
        "sqlite_version": sqlite3.sqlite_version,
        "python": sys.version.split()[0],
        "recorded": [verify(db, r["response"]["output"][-1]["content"][0]["text"], rows[i]["gt_sql"]) for i, r in enumerate(rollouts)],
        "cases": [verify(db, c["text"], c["gt_sql"]) for c in cases],
    }
(HERE / "expected.json").write_text(json.dumps(out, indent=1) + "\n")
