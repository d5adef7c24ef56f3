"""Loads the stdlib-only parts of a NeMo Gym module straight from the NeMo Gym mirror, without copying them.

Fixture generators for the catalog ports call `load(path, commit)` to get a namespace holding the
module's top-level functions and constants as NeMo Gym wrote them at that commit, so the fixtures
record what NeMo Gym's own code answers. Imports of NeMo Gym (and third-party packages) and class
definitions are dropped: only standard-library imports, assignments and functions are executed.

Environment: NEMO_GYM_GIT (default /work/.mirror/NVIDIA-NeMo+Gym/repo), a git directory of NVIDIA-NeMo/Gym.
"""
import ast
import os
import subprocess
import sys

GIT_DIR = os.environ.get("NEMO_GYM_GIT", "/work/.mirror/NVIDIA-NeMo+Gym/repo")
COMMIT = "07d6b0d"


def source(path: str, commit: str = COMMIT) -> str:
    return subprocess.run(["git", "--git-dir", GIT_DIR, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True).stdout


def _stdlib(module: str) -> bool:
    root = module.split(".")[0]
    return root in sys.stdlib_module_names or root == "__future__"


def load(path: str, commit: str = COMMIT) -> dict:
    # Annotations stay unevaluated: they may name the NeMo Gym classes that are dropped.
    tree = ast.parse("from __future__ import annotations\n" + source(path, commit))
    kept = []
    for node in tree.body:
        if isinstance(node, ast.Import) and all(_stdlib(a.name) for a in node.names):
            kept.append(node)
        elif isinstance(node, ast.ImportFrom) and node.module and _stdlib(node.module) and (node.module != "__future__" or not kept):
            kept.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.Assign, ast.AnnAssign)):
            kept.append(node)
    # __file__ lets module constants built from it (default prompt paths) evaluate; nothing is read there.
    namespace: dict = {"__name__": "nemo_gym_upstream", "__file__": path}
    exec(compile(ast.Module(body=kept, type_ignores=[]), path, "exec"), namespace)
    return namespace
