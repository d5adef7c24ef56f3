#!/usr/bin/env python3
"""Writes python_numbers.json: CPython's float(text.strip()) and round(x, n) on the cases below, the two
Python behaviours CCC scores depend on. Run: python3 make_python_numbers.py (records the Python version)."""
import json
import platform
from pathlib import Path

texts = ["1", "0", "0.5", "1.0\n", " 1e0 ", "-0", ".5", "5.", "1_0", "1__0", "_1", "inf", "-Infinity", "nan", "",
         "0x1", "1 1", "one", "1.2.3", "+.5e-1", "1e", "١", "0.3333333333333333", "1e400"]
floats = []
for t in texts:
    try:
        v = float(t.strip())
        floats.append([t, "nan" if v != v else v if abs(v) != float("inf") else ("inf" if v > 0 else "-inf")])
    except ValueError:
        floats.append([t, None])
rounds = []
for x in [5.5, 4.5, 0.5, 1.5, 2.5, -2.5, 0.25, 0.35, 2.675, 7.45, 10.0, 5.5 * 11 / 11, 0.5 * 11, 0.5 * 7, 1 / 3 * 30, 0.1 * 3]:
    for n in [0, 1, 2, 3]:
        rounds.append([x, n, round(x, n)])
out = {"python": platform.python_version(), "float": floats, "round": rounds}
Path(__file__).with_name("python_numbers.json").write_text(json.dumps(out, indent=1) + "\n")
