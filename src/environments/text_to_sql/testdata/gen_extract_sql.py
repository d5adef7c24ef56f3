"""Generates extract_sql.json: NeMo Gym's own extract_sql_from_response (07d6b0d) on the texts below.

Run from anywhere with the NeMo Gym mirror present:
    python3 gen_extract_sql.py /work/.mirror/NVIDIA-NeMo+Gym/repo > extract_sql.json
The function is read from resources_servers/text_to_sql/app.py at 07d6b0d (git show) and run as is
(it needs only `re` and `typing`); nothing of it is copied here.
"""
import ast
import json
import re
import subprocess
import sys
from typing import Optional

git_dir = sys.argv[1]
source = subprocess.run(
    ["git", f"--git-dir={git_dir}", "show", "07d6b0d:resources_servers/text_to_sql/app.py"],
    capture_output=True, check=True, text=True,
).stdout
tree = ast.parse(source)
fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "extract_sql_from_response")
namespace = {"re": re, "Optional": Optional}
exec(compile(ast.Module(body=[fn], type_ignores=[]), "app.py", "exec"), namespace)
extract = namespace["extract_sql_from_response"]

TEXTS = [
    "",
    "no sql here",
    "```sql\nSELECT * FROM t;\n```",
    "```SQL\n  select 1\n```",
    "```sql\nSELECT 1;\n```\nthen\n```sql\nSELECT 2;\n```",
    "```sql\n```",
    "```sql   ```",
    "```\nSELECT a FROM b\n```",
    "```\nnot sql\n```",
    "```python\nprint(1)\n```\nSELECT x FROM y;",
    "```\nWITH c AS (SELECT 1) SELECT * FROM c\n```\n```\nhello\n```",
    "```\nhello\n```\n```\n  delete from t where id = 1\n```",
    "```\nSELECT\n```",
    "Here it is: SELECT name FROM users WHERE id = 1; hope that helps",
    "SELECT INSTR(text, ';') FROM t -- convert; done",
    "select a from b",
    "SELECT a FROM b;;;",
    "Answer; then SELECT a FROM b",
    "WITH\tx AS (SELECT 1) SELECT * FROM x;",
    "Use UPDATE t SET a=1;\nand also DELETE FROM t;",
    "selected items; SELECT\n* FROM t",
    "SELECTION is not a keyword",
    "```sql\nSELECT é FROM naïve;\n```",
    "Answer:\n```mysql\nSELECT 1\n```",
    "  \n```\n\tINSERT INTO t VALUES (1)\n```  ",
    "CREATE TABLE t (a int);",
    "```\ncreate table t (a int)\n```",
]

json.dump([{"text": t, "sql": extract(t)} for t in TEXTS], sys.stdout, ensure_ascii=False, indent=1)
print()
