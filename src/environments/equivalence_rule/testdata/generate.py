# Generates reference.json: NeMo Gym's equivalence_rule grading rules (app.py at commit 07d6b0d, read
# from a NeMo Gym checkout; its difflib is the running Python's) on the cases below. The server's
# imports (pydantic, nemo_gym) are replaced by empty stand-ins; only `_grade` is called.
#   python3 generate.py /path/to/NeMo-Gym/resources_servers/equivalence_rule/app.py > reference.json
import json
import sys
import types


class _Model:
    pass


def _stub(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module


_stub("pydantic", ConfigDict=lambda **kw: kw)
_stub("nemo_gym")
_stub(
    "nemo_gym.base_resources_server",
    BaseResourcesServerConfig=_Model,
    BaseRunRequest=_Model,
    BaseVerifyRequest=_Model,
    BaseVerifyResponse=_Model,
    SimpleResourcesServer=_Model,
)
app = {"__name__": "equivalence_rule_app"}
exec(compile(open(sys.argv[1], encoding="utf-8").read(), "app.py", "exec"), app)
server, rule = app["EquivalenceRuleResourcesServer"], app["GradingRule"]

long_answer = "The quick brown fox jumps over the lazy dog. " * 8
PAIRS = [
    ("Paris", "paris"),
    ("  The   answer\tis\n42  ", "the answer is 42"),
    ("the answer is 42", "The answer is 43"),
    ("6", "5"),
    ("", ""),
    ("", "something"),
    ("something", ""),
    ("Hello world", "hello"),
    ("hello", "Hello world, how are you today?"),
    ("world hello", "hello world"),
    ("ＡＢＣ", "abc"),
    ("Straße", "STRASSE"),
    ("naïve café", "naive cafe"),
    ("a\u3000b\x85c", "a b c"),
    ("a\u200bb", "a b"),
    ("🙂 smile", "🙂 smile!"),
    ("abcdefghijXYZ", "abcdefghijklmnop"),
    ("XYZdefghij", "abcdefghij"),
    (long_answer, long_answer.replace("lazy", "sleepy")),
    (long_answer[:150], long_answer),
    ("x" * 300, "x" * 250 + "y" * 50),
    ("NfAfO1iLD0CnDeN0BkdPp6woTo the shimmering depths", "NfAfO1iLD0CnDeN0BkdPp6woTo the shimmering depths"),
]

out = []
for response, answer in PAIRS:
    out.append({
        "response": response,
        "answer": answer,
        "exact": server._grade(response, answer, rule.EXACT),
        "seq_match": server._grade(response, answer, rule.SEQ_MATCH),
        "weighted_seq_match": server._grade(response, answer, rule.WEIGHTED_SEQ_MATCH),
    })
json.dump({"source": "NVIDIA-NeMo/Gym 07d6b0d resources_servers/equivalence_rule/app.py", "python": sys.version.split()[0], "cases": out}, sys.stdout, ensure_ascii=False, indent=1)
print()
