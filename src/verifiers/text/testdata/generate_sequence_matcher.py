#!/usr/bin/python3
"""Writes reference outputs of Python's difflib.SequenceMatcher for sequence_matcher.ts.

Run with any CPython 3 (difflib is stdlib; the committed file was made with Debian's python3 3.11.7
and re-checked with 3.14): python3 generate_sequence_matcher.py > sequence_matcher.json
Cases: hand-picked edge cases, random short strings over tiny alphabets (junk-heavy), long texts
around and far beyond the 200-element autojunk threshold, non-BMP code points, word lists, and
both autojunk settings. Every case records ratio(), get_matching_blocks() and find_longest_match().
"""
import json
import random
from difflib import SequenceMatcher

rng = random.Random(20261125)
WORDS = ("the of and to in is was that for on with as by at from his her an which be this are not but had "
         "needle haystack poem riddle lantern winter river stone quiet garden memory".split())


def text(n_words):
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def mutate(s, edits):
    chars = list(s)
    for _ in range(edits):
        op = rng.random()
        pos = rng.randrange(len(chars) + 1)
        if op < 0.4 and chars:
            del chars[min(pos, len(chars) - 1)]
        elif op < 0.8:
            chars.insert(pos, rng.choice("abcdefghij ,.\n"))
        elif chars:
            chars[min(pos, len(chars) - 1)] = rng.choice("xyz ")
    return "".join(chars)


cases = []


def add(name, a, b, autojunk=True):
    cases.append({"name": name, "a": a, "b": b, "autojunk": autojunk})


add("both empty", "", "")
add("a empty", "", "abc")
add("b empty", "abc", "")
add("identical", "hello world", "hello world")
add("docstring", " abcd", "abcd abcd")
add("disjoint", "abc", "xyz")
add("private use and astral", "a\U0001F600b\u00e9c", "\U0001F600bc\u00e9")
add("astral long", "\U0001F600x" * 150, "x\U0001F600" * 160)
for n in (198, 199, 200, 201, 202, 300):
    add(f"threshold b={n} one popular", "a" * 10 + "b" + "a" * 10, "a" * (n - 1) + "b")
    add(f"threshold b={n} spaces", ("word " * 80)[:150], ("word " * 100)[:n])
add("popular only in b", "x" * 50 + "ab" * 20, "ab" * 150)
add("popular extension", "qq" + " " * 20 + "zz", "pp" + " " * 3 + "qq" + " " * 300 + "zz")
add("junk heavy long", "aaaa baaa caaa " * 30, "aaab aaac aaad " * 30)
for i in range(60):
    alpha = rng.choice(["ab", "abc", "a b", "xyz \n"])
    a = "".join(rng.choice(alpha) for _ in range(rng.randrange(0, 40)))
    b = "".join(rng.choice(alpha) for _ in range(rng.randrange(0, 40)))
    add(f"random short {i}", a, b, autojunk=rng.random() < 0.7)
for i in range(40):
    base = text(rng.randrange(40, 600))
    other = mutate(base, rng.randrange(0, 60)) if rng.random() < 0.7 else text(rng.randrange(40, 600))
    if rng.random() < 0.3:
        other = base[: len(base) // 2] + text(30) + base[len(base) // 2 :]
    add(f"long text {i}", other, base, autojunk=rng.random() < 0.75)
for i in range(10):
    alpha = rng.choice(["ab", "abc ", "0123456789"])
    a = "".join(rng.choice(alpha) for _ in range(rng.randrange(150, 900)))
    b = "".join(rng.choice(alpha) for _ in range(rng.randrange(190, 1200)))
    add(f"long junk heavy {i}", a, b, autojunk=i % 3 != 0)
for i in range(10):
    a = text(rng.randrange(0, 300)).split()
    b = text(rng.randrange(0, 300)).split()
    add(f"word list {i}", a, b, autojunk=i % 2 == 0)

out = []
for c in cases:
    sm = SequenceMatcher(None, c["a"], c["b"], autojunk=c["autojunk"])
    lm = sm.find_longest_match(0, len(c["a"]), 0, len(c["b"]))
    out.append({
        **c,
        "ratio": sm.ratio(),
        "blocks": [list(m) for m in sm.get_matching_blocks()],
        "longest": list(lm),
        "popular": len(sm.bpopular),
    })
print(json.dumps(out, ensure_ascii=True, indent=None))
