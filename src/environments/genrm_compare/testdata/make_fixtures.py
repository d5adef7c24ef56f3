"""Fixtures for genrm_compare's scoring, computed by NeMo Gym's own utils.py at 07d6b0d.

How it was made (host python3 with numpy and pydantic):
    git --git-dir=/work/.mirror/NVIDIA-NeMo+Gym/repo show 07d6b0d:resources_servers/genrm_compare/utils.py > /tmp/genrm_utils.py
    python3 src/environments/genrm_compare/testdata/make_fixtures.py /tmp/genrm_utils.py > src/environments/genrm_compare/testdata/fixtures.json

The cases are seeded (random.Random(7)), so the output is the same on every run.
"""

import importlib.util
import json
import random
import sys

spec = importlib.util.spec_from_file_location("genrm_utils", sys.argv[1])
utils = importlib.util.module_from_spec(spec)
spec.loader.exec_module(utils)

rng = random.Random(7)

PARSE_TEXTS = [
    '{"score_1": 4, "score_2": 2, "ranking": 2}',
    'Reasoning... final: {"score_1": 4, "score_2": 2, "ranking": 2} and later {"score_1": 1, "score_2": 5, "ranking": 6}',
    'First ```json\n{"score_1": 5, "score_2": 1, "ranking": 1}\n``` then {"score_1": 1, "score_2": 5, "ranking": 6}',
    '```JSON {"score_1": "4", "score_2": " 3.5 ", "ranking": "2"} ```',
    '```json\n{"note": "no scores"}\n```\n{"score_1": 2, "score_2": 3, "ranking": 4}',
    '{"overall": {"score_1": 3, "score_2": 3, "ranking": 5}, "rubric_evaluations": []}',
    '{"score_1": 4}',
    '{"ranking": 1}',
    '{"score_1": null, "score_2": 3, "ranking": 3}',
    '{"score_1": true, "score_2": false, "ranking": 3}',
    '{"score_1": "four", "score_2": 3, "ranking": 3}',
    '{"score_1": [4], "score_2": 3, "ranking": 3}',
    '{"score_1": "1_0", "score_2": "inf", "ranking": "-Infinity"}',
    'no json here',
    'None',
    '',
    '{"score_1": 4, "score_2": 2, "ranking": 2',
    '{"a": "}{", "score_1": 2, "score_2": 4, "ranking": 5}',
    '{"a": "quote \\" brace }", "score_1": 1, "score_2": 2, "ranking": 5}',
    '{{"score_1": 4, "score_2": 2, "ranking": 2}',
    '{ "outer": {"score_1": 5, "score_2": 5, "ranking": 1} }',
    '{"overall": "x", "score_1": 2, "score_2": 2, "ranking": 2}',
    '```json {"score_1": 1, "score_2": 1, "ranking": 1} {"score_1": 2, "score_2": 2, "ranking": 2} ```',
    '```json\n{bad json}\n```',
    '[{"score_1": 4, "score_2": 2, "ranking": 2}]',
    '{"score_1": 4, "score_2": 2, "ranking": 2, "score_1": 1}',
    '{"score_1": 4.5e0, "score_2": -2, "ranking": 3.49}',
    '\u00e9\u00e8 {"score_1": 3, "score_2": 4, "ranking": "4"} \U0001F600',
    '{"score_1": 4, "score_2": 2, "ranking": 2}\n```json\n{"score_1": 1, "score_2": 1, "ranking": 6}\n```',
]

WORDS = ["alpha", "beta", "\u00e9t\u00e9", "\u4e2d\u6587", "\U0001F600", "**bold**", "__under__", "`x`", "\u2728"]
LINE_STARTS = ["", "# ", "## ", "- ", "* ", "+ ", "1. ", "  2. ", "\u0663. ", "####### ", "#no", "-no"]


def random_text():
    lines = []
    for _ in range(rng.randint(0, 6)):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6)))
        lines.append(rng.choice(LINE_STARTS) + body)
    text = rng.choice(["\n", "\r\n", "\n\n"]).join(lines)
    if rng.random() < 0.3:
        text += "\n```python\n# not a header\n- not a list\n```\n"
    if rng.random() < 0.2:
        text = rng.choice([" ", "\t", "\u00a0", "\u3000", "\x1c"]) + text + rng.choice([" ", "\n", "\x85"])
    return text


def random_response():
    output = []
    if rng.random() < 0.7:
        output.append({"type": "reasoning", "summary": [{"type": "summary_text", "text": random_text()} for _ in range(rng.randint(0, 2))]})
    for _ in range(rng.randint(0, 2)):
        output.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": random_text()} for _ in range(rng.randint(0, 2))]})
    return {"output": output}


def verdict():
    if rng.random() < 0.4:
        s = float(rng.randint(1, 5))
        return [s, s, float(rng.randint(1, 6))]
    return [float(rng.randint(1, 5)), float(rng.randint(1, 5)), float(rng.randint(1, 6))]


aggregate_cases = []
for case in range(60):
    n = rng.randint(2, 8)
    strategy = rng.choice(["circular", "all_pairs"])
    judges = rng.randint(1, 2)
    pairs = utils.generate_comparison_pairs(strategy, n)
    metadata = sorted([(i, j, k) for k in range(judges) for (i, j) in pairs], key=lambda m: (m[2], m[0], m[1]))
    results = [tuple(verdict()) for _ in metadata]
    responses = [random_response() for _ in range(n)]
    settings = {
        "default_score": 3.0,
        "reasoning_bonus": rng.choice([0.0, 0.0, 0.5, 1.0]),
        "answer_bonus": rng.choice([0.0, 0.0, 0.25, 1.0]),
        "top_percentile": rng.choice([0.2, 0.5, 1.0, 0.0]),
        "group_reasoning_length_penalty_coeff": rng.choice([0.0, 0.0, 0.3]),
        "group_answer_length_penalty_coeff": rng.choice([0.0, 0.0, 0.7]),
        "group_style_penalty_coeff": rng.choice([0.0, 0.0, 0.5, 2.0]),
    }
    rewards, _, _, _ = utils.aggregate_scores(
        comparison_results=results,
        comparison_metadata=metadata,
        response_objs=responses,
        aggregator_method="simple_tiebreaker",
        **settings,
    )
    aggregate_cases.append(
        {"strategy": strategy, "n": n, "judges": judges, "pairs": [list(p) for p in pairs], "metadata": [list(m) for m in metadata],
         "results": [list(r) for r in results], "responses": responses, "settings": settings, "rewards": rewards}
    )


def parse(text):
    try:
        return list(utils.parse_genrm_output(text, 3.0, 3.5, raise_on_fail=True))
    except utils.GenRMOutputParseError:
        return None


def finite(value):
    # JSON has no inf/nan: spell them as strings.
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return repr(value)
    return value


texts = [random_text() for _ in range(80)]
responses = [random_response() for _ in range(40)]
fixtures = {
    "parse": [{"text": t, "verdict": None if (v := parse(t)) is None else [finite(x) for x in v]} for t in PARSE_TEXTS],
    "style": [{"text": t, "density": utils.compute_style_density(t), "counts": utils.count_style_elements(t)} for t in texts],
    "extract": [{"response": r, "reasoning_and_answer": list(utils.extract_from_response_obj(r)), "output_text": utils.extract_output_text(r)} for r in responses],
    "aggregate": aggregate_cases,
}
json.dump(fixtures, sys.stdout, ensure_ascii=False, indent=1)
sys.stdout.write("\n")
