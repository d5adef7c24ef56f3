#!/usr/bin/python3
"""Writes reference outputs of the `editdistance` package for edit_distance.ts and ruler2's WER.

editdistance is not packaged by Debian; the committed file was made with roy-ht/editdistance at tag
v0.8.1 (commit 9e05bc645062f68a5c329ea64a1c31cd142bd185) built from source under Debian's Python 3.14:
  cd src/editdistance && cython3 --cplus -3 bycython.pyx -o bycython.cpp
  g++ -O2 -shared -fPIC $(python3-config --includes) bycython.cpp _editdistance.cpp \
      -o bycython$(python3-config --extension-suffix)
  PYTHONPATH=<checkout>/src python3 generate_edit_distance.py > edit_distance.json
Each case records eval() on the two strings and on their str.split() word lists, and the word error
rate as NeMo Gym's ruler2 computes it (editdistance of the lower-cased word lists / reference words).
"""
import json
import random

import editdistance

rng = random.Random(1125)
WORDS = "the a of key value needle is 7421 magic number secret hidden city paris rome berlin".split()


def text(n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def mutate_words(s, edits):
    w = s.split()
    for _ in range(edits):
        op = rng.random()
        pos = rng.randrange(len(w) + 1)
        if op < 0.33 and w:
            del w[min(pos, len(w) - 1)]
        elif op < 0.66:
            w.insert(pos, rng.choice(WORDS))
        elif w:
            w[min(pos, len(w) - 1)] = rng.choice(WORDS).upper()
    return rng.choice([" ", "  ", "\n", "\t "]).join(w)


pairs = [("", ""), ("", "abc"), ("kitten", "sitting"), ("ab", "ba"), ("flaw", "lawn"),
         ("a\U0001F600b", "ab"), ("The Key is 42", "the key is 42"), ("x\u3000y z\x1cw", "x y z w"),
         ("  leading and trailing  ", "leading trailing")]
for i in range(80):
    ref = text(rng.randrange(0, 12))
    hyp = mutate_words(ref, rng.randrange(0, 6)) if rng.random() < 0.8 else text(rng.randrange(0, 12))
    pairs.append((hyp, ref))
for i in range(15):
    ref = text(rng.randrange(100, 400))
    pairs.append((mutate_words(ref, rng.randrange(0, 80)), ref))
for i in range(10):
    a = "".join(rng.choice("abc ") for _ in range(rng.randrange(0, 300)))
    b = "".join(rng.choice("abc ") for _ in range(rng.randrange(0, 300)))
    pairs.append((a, b))

out = []
for hyp, ref in pairs:
    h, r = hyp.lower().split(), ref.lower().split()
    out.append({
        "a": hyp,
        "b": ref,
        "chars": editdistance.eval(hyp, ref),
        "words": editdistance.eval(hyp.split(), ref.split()),
        "wer": (editdistance.eval(h, r) / len(r)) if r else None,
    })
print(json.dumps(out, ensure_ascii=True))
