# Generates reference.json: NeMo Gym's own string_match extraction and grading functions (app.py at
# commit 07d6b0d, read from a NeMo Gym checkout) run on the cases below. Only the pure functions are
# used; the server's imports (fastapi, nemo_gym) are replaced by empty stand-ins so no install is needed.
#   python3 generate.py /path/to/NeMo-Gym/resources_servers/string_match/app.py > reference.json
import json
import sys
import types


class _Model:
    pass


def _stub(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module


_stub("fastapi", FastAPI=object)
_stub("nemo_gym")
_stub(
    "nemo_gym.base_resources_server",
    BaseResourcesServerConfig=_Model,
    BaseRunRequest=_Model,
    BaseVerifyRequest=_Model,
    BaseVerifyResponse=_Model,
    SimpleResourcesServer=_Model,
)
app = {"__name__": "string_match_app"}
exec(compile(open(sys.argv[1], encoding="utf-8").read(), "app.py", "exec"), app)

TEXTS = [
    # boxed
    ("The capital is \\(\\boxed{\\text{Paris}}\\).", "boxed", "Paris"),
    ("\\boxed{ \\text{ \\text{ Paris } } }", "boxed", "paris"),
    ("\\boxed{80} then \\boxed{81", "boxed", "80"),
    ("\\boxed{81", "boxed", "81"),
    ("\\boxed{\\frac{1}{2}}", "boxed", "\\frac{1}{2}"),
    ("\\boxed{1/2}", "boxed", "0.5"),
    ("no box here", "boxed", "no box here"),
    ("\\boxed{}", "boxed", ""),
    ("\\boxed{\\text{a} and \\text{b}}", "boxed", "a and b"),
    ("\\boxed{80 km/h}", "boxed", "80"),
    ("\\boxed{79.5}", "boxed", "80"),
    ("\\boxed{79.9}", "boxed", "80"),
    ("\\boxed{-0}", "boxed", "0"),
    ("\\boxed{1,000}", "boxed", "1000"),
    ("\\boxed{1,000,000}", "boxed", "1000000"),
    ("\\boxed{١٢}", "boxed", "12"),
    ("\\boxed{1_000}", "boxed", "1000"),
    ("\\boxed{inf}", "boxed", "Infinity"),
    ("\\boxed{nan}", "boxed", "NaN"),
    ("\\boxed{50\\%}", "boxed", "50%"),
    ("\\boxed{\\$5}", "boxed", "5"),
    ("\\boxed{90°}", "boxed", "90"),
    ("\\boxed{90^\\circ}", "boxed", "90°"),
    ("\\boxed{5 m²}", "boxed", "5"),
    ("\\boxed{mom}", "boxed", "oo"),
    ("\\boxed{π}", "boxed", "\\pi"),
    ("\\boxed{x²}", "boxed", "x^2"),
    ("\\boxed{ＡＢＣ}", "boxed", "abc"),
    ("\\boxed{'Paris'}", "boxed", "Paris"),
    ("\\boxed{\"Paris\"}", "boxed", "paris!"),
    ("\\boxed{Paris?!}", "boxed", "paris"),
    ("\\boxed{...}", "boxed", "."),
    ("\\boxed{red, green and blue}", "boxed", "red green blue"),
    ("\\boxed{red; green; blue}", "boxed", "red, green, blue"),
    ("\\boxed{cat and dog}", "boxed", "cat dog"),
    ("\\boxed{New York and Texas}", "boxed", "ny, tx"),
    ("\\boxed{Arkansas}", "boxed", "AR"),
    ("\\boxed{Kansas}", "boxed", "ks"),
    ("\\boxed{\\textbf{Saturn}}", "boxed", "Saturn"),
    ("\\boxed{\\mathrm{Saturn}}", "boxed", "$Saturn$"),
    ("\\boxed{100.5}", "boxed", "100"),
    ("\\boxed{100.9}", "boxed", "100"),
    ("\\boxed{101}", "boxed", "100"),
    ("\\boxed{1e2}", "boxed", "100"),
    ("\\boxed{0.0000000001}", "boxed", "0"),
    ("\\boxed{1e400}", "boxed", "1e400"),
    ("\\boxed{Paris}", "boxed", "Pari"),
    ("\\boxed{Pacific}", "boxed", "Pacific Ocean"),
    ("\\boxed{Sydney}", "boxed", "Canberra"),
    ("\\boxed{12}", "boxed", "21"),
    ("\\boxed{-80}", "boxed", "80"),
    # final_answer
    ("Reasoning.\nFinal answer: Saturn.", "final_answer", "Saturn"),
    ("Answer: Jupiter\nFinal Answer: Saturn", "final_answer", "Saturn"),
    ("answer：15", "final_answer", "15"),
    ("FINAL   ANSWER :  15 .", "final_answer", "15"),
    ("Final answer: 15...", "final_answer", "15"),
    ("The answer is \\boxed{15}", "final_answer", "15"),
    ("Final answer:\n15", "final_answer", "15"),
    ("Final answer: 15\r\nthanks", "final_answer", "15"),
    ("My answer: 3.14 meters", "final_answer", "3.14"),
    ("answer: the answer is 7", "final_answer", "7"),
    ("Final answer: \\boxed{7}", "final_answer", "7"),
    ("Final answer: 7.0", "final_answer", "7"),
    ("Final answer: 1,234", "final_answer", "1234"),
    ("Answer : 42\u2028more", "final_answer", "42"),
    ("I think Saturn", "final_answer", "Saturn"),
    # last_line
    ("Let me think.\n\nPacific Ocean\n\n", "last_line", "Pacific Ocean"),
    ("Pacific Ocean\nDone", "last_line", "Pacific Ocean"),
    ("First\x85Pacific Ocean", "last_line", "Pacific Ocean"),
    ("First\u2029  Pacific Ocean  \x0b", "last_line", "Pacific Ocean"),
    ("pacific ocean.", "last_line", "Pacific Ocean"),
    # full_response
    ("  Paris  ", "full_response", "Paris"),
    ("Paris is the capital", "full_response", "Paris"),
    ("   ", "full_response", ""),
]

CASE_SENSITIVE = [
    ("\\boxed{Paris}", "boxed", "Paris"),
    ("\\boxed{paris}", "boxed", "Paris"),
    ("\\boxed{ Paris }", "boxed", " Paris "),
    ("Final answer: 80", "final_answer", "80.0"),
]

out = []
for cases, sensitive in ((TEXTS, False), (CASE_SENSITIVE, True)):
    for text, mode, expected in cases:
        extracted = app["_extract_answer"](text.strip(), mode)
        reward = 0.0
        if extracted is not None and expected:
            reward = app["_answers_match"](extracted, expected, sensitive)
        out.append({"text": text, "mode": mode, "expected": expected, "case_sensitive": sensitive, "extracted": extracted, "reward": reward})
json.dump({"source": "NVIDIA-NeMo/Gym 07d6b0d resources_servers/string_match/app.py", "python": sys.version.split()[0], "cases": out}, sys.stdout, ensure_ascii=False, indent=1)
print()
