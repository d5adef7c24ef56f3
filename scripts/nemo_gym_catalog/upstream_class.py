"""Loads one class of a NeMo Gym module straight from the NeMo Gym mirror, methods only, without copying it.

For fixture generators that need a server's own `compute_metrics` / `get_key_metrics` (or any method
that uses only the standard library and names given in `namespace`): the class is rebuilt without
its bases and with only its function members (decorators kept), so `Server().compute_metrics(tasks)`
runs NeMo Gym's code as written at that commit. Use with upstream.load for the module's functions.
"""
import ast

import upstream


def load_class(path: str, name: str, namespace: dict, commit: str = upstream.COMMIT) -> type:
    tree = ast.parse("from __future__ import annotations\n" + upstream.source(path, commit))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            node.bases, node.keywords = [], []
            node.body = [member for member in node.body if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))]
            module = ast.Module(body=[tree.body[0], node], type_ignores=[])
            exec(compile(module, path, "exec"), namespace)
            return namespace[name]
    raise KeyError(f"{path} has no class {name}")


def load_functions(path: str, names: list, commit: str = upstream.COMMIT) -> dict:
    """Only the named top-level functions of a module (with its standard-library imports), for modules
    whose other top-level statements need third-party names (nemo_gym/reward_profile.py)."""
    tree = ast.parse("from __future__ import annotations\n" + upstream.source(path, commit))
    kept = [tree.body[0]]
    for node in tree.body[1:]:
        if isinstance(node, ast.Import) and all(upstream._stdlib(a.name) for a in node.names):
            kept.append(node)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__" and upstream._stdlib(node.module):
            kept.append(node)
        elif isinstance(node, ast.FunctionDef) and node.name in names:
            kept.append(node)
    namespace: dict = {"__name__": "nemo_gym_upstream"}
    exec(compile(ast.Module(body=kept, type_ignores=[]), path, "exec"), namespace)
    missing = [n for n in names if n not in namespace]
    if missing:
        raise KeyError(f"{path} has no function(s) {missing}")
    return namespace
