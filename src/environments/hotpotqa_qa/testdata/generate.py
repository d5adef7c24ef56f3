#!/usr/bin/python3
"""Writes scoring.json: NeMo Gym's own hotpotqa_qa scoring (scoring.py at 07d6b0d) on the cases below.

Run from the repository root with the host's python3 (stdlib only):
    python3 src/environments/hotpotqa_qa/testdata/generate.py
scoring.py is read from the NeMo Gym mirror by scripts/nemo_gym_catalog/upstream.py, not copied.
For each ground truth: normalize_gt; for each (prediction, ground truth) pair: normalize_answer of
both, answer_exact_match, answer_f1_score, is_correct and is_correct_strict on the alternatives;
for each generation: parse_generation's answer.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts", "nemo_gym_catalog"))
import upstream  # noqa: E402

ns = upstream.load("resources_servers/hotpotqa_qa/scoring.py")

GROUND_TRUTHS = [
    "yes", "no", "Scott Derrickson", "The Beatles", "the Who", "A Tribe Called Quest", "an apple", "3,677 seated",
    "1,234,567", "twenty-first", "21st", "five", "5", "U.S.", "J. R. R. Tolkien", "Sergeant-at-Arms", "-5 degrees",
    "Simon & Garfunkel", "Simon and Garfunkel", "Tom AND Jerry", "Chief of Protocol", "Los Angeles (California)",
    "(1990)", "\"Hey Jude\"", "“Yesterday”", "Hello!", "Ark.", "3.14", "No. 5", "Île-de-France", "İstanbul and Ankara",
    "The Lord of the Rings: The Fellowship of the Ring", "Kingdom of Great Britain and Ireland", "Barack Hussein Obama II",
    "A B", "ab", "²", "x", "Ⅻ", "New York City", "The Quick Brown Fox Jumps", "ǅemal Bijedić Mostar",
    "St. Louis, Missouri", "The  Band  (rock group)", "Ed Wood", "Cá Mau", "ΟΔΟΣ", "  padded  ",
]
PREDICTIONS = [
    "yes", "No.", "Scott Derrickson", "Derrickson", "the beatles", "Beatles", "Who", "The Who band", "A Tribe Called Quest!",
    "apple", "3677 seated", "1234567", "21st", "twenty first", "5", "five", "US", "u.s.", "JRR Tolkien", "sergeant at arms",
    "Simon and Garfunkel", "Simon & Garfunkel", "Los Angeles", "California", "1990", "Hey Jude", "yesterday", "hello",
    "Ark", "3.14", "No 5", "Ile-de-France", "i̇stanbul & ankara", "the fellowship of the ring", "Barack Obama",
    "", "ab", "2", "X", "new york city", "It is New York City, the largest city in the United States of America by far, yes indeed x",
    "A long preamble that goes on and on about many unrelated things before finally saying: Ed Wood",
    "Ed\u00a0Wood", "Ed\u2013Wood", "ca mau", "οδος", "padded", "noanswer", "the the a", "Ed Woods", "st louis missouri",
]
GENERATIONS = [
    "", "   ", "plain text answer", "{\"answer\": \"yes\"}", "Reasoning.\n{\"answer\": \"Ed Wood\", \"supporting_facts\": [[\"Ed Wood\", 0]]}",
    "```json\n{\"answer\": \"Chicago\"}\n```", "```\n{\"answer\": \"a\"}\n```\nthen {\"answer\": \"b\"}",
    "{\"answer\": 1990}", "{\"answer\": 1.0}", "{\"answer\": 1e16}", "{\"answer\": true}", "{\"answer\": null}",
    "{\"answer\": [\"a\", 'b']}", "{\"answer\": [\"a\", \"b\"]}", "{\"answer\": {\"x\": 1, \"y\": [false]}}", "{\"answer\": NaN}",
    "{\"answer\": -Infinity}", "{\"answer\": 12345678901234567890123}", "{\"answer\": \"line\nbreak\"}",
    "{\"answer\": \"tab\\tok\"}", "{\"answer\": \"x\"} {\"answer\": \"y\"}", "{\"other\": 1}", "{\"answer\": \"x\"} {broken",
    "{not json} {\"answer\": \"z\"}", "{\"a\": {\"answer\": \"inner\"}}", "{{\"answer\": \"q\"}", "text {\"answer\": \"k\", } end",
    "{\"answer\": \"dup\", \"answer\": \"last\"}", "```json {\"answer\": \"fence\"} ```", "```JSON\n{\"answer\": \"upper\"}\n```",
    "{\"answer\": \"s\", \"supporting_facts\": [[\"t\", \"3\"], [\"u\", \"x\"], [\"v\", null], 7]}", "{\"answer\": 0.1}",
    "{\"answer\": -0}", "{\"answer\": 1E400}", "{\"answer\": \"\\u00e9\"}", "{\"answer\": \"it's\"}", "{\"answer\": [\"it's\"]}",
]

gts = [{"gt": gt, **{k: v for k, v in ns["normalize_gt"](gt).items() if k in ("alternatives", "should_remove", "remove_reason")}} for gt in GROUND_TRUTHS]
pairs = []
for gt in GROUND_TRUTHS:
    alts = ns["normalize_gt"](gt)["alternatives"]
    for pred in PREDICTIONS:
        pairs.append({
            "prediction": pred, "gt": gt,
            "normalized": [ns["normalize_answer"](pred), ns["normalize_answer"](gt)],
            "em": ns["answer_exact_match"](pred, gt), "f1": list(ns["answer_f1_score"](pred, gt)),
            "is_correct": ns["is_correct"](alts, pred), "is_correct_strict": ns["is_correct_strict"](alts, pred),
        })
gens = [{"generation": g, "answer": ns["parse_generation"](g)[0]} for g in GENERATIONS]

with open(os.path.join(HERE, "scoring.json"), "w", encoding="utf-8") as f:
    json.dump({"ground_truths": gts, "pairs": pairs, "generations": gens}, f, ensure_ascii=False)
    f.write("\n")
