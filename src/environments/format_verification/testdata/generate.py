# Generates reference.json: NeMo Gym's format_verification checks (_verify_regex and
# _verify_string_match from resources_servers/format_verification/app.py at commit 07d6b0d, read from
# a NeMo Gym checkout) on the cases below, with the running Python's `re`. The server's imports
# (fastapi, nemo_gym) are replaced by empty stand-ins.
#   python3 generate.py /path/to/NeMo-Gym/resources_servers/format_verification/app.py > reference.json
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
    BaseVerifyRequest=_Model,
    BaseVerifyResponse=_Model,
    SimpleResourcesServer=_Model,
)
app = {"__name__": "format_verification_app"}
exec(compile(open(sys.argv[1], encoding="utf-8").read(), "app.py", "exec"), app)
server = app["FormatVerificationResourcesServer"]

NUMBERED = ["^\\d+\\.\\s*\".+\":\\s*.+"]
KV = ["^.{2,30}\\s*=\\s*.+"]
REGEX_CASES = [
    ("1. \"A\": x\n2. \"B\": y\n3. \"C\": z", NUMBERED, 3),
    ("1. \"A\": x\n2. \"B\": y\nthree: z", NUMBERED, 3),
    ("١. \"A\": x\n٢. \"B\": y\n٣. \"C\": z", NUMBERED, 3),
    ("1.\"A\":x\r\n2. \"B\":\ty\r\n3. \"C\": z\r", NUMBERED, 3),
    ("1. \"A\":\n2. \"B\": \n3. \"C\":  ", NUMBERED, 3),
    ("a = 1\nbb = 2\nccc = 3", KV, 3),
    ("a = 1\nbb = 2\nccc = 3", KV, None),
    ("x = 1\nbb = 2\nccc = 3", KV, 3),
    ("key with spaces and more than thirty characters = 1\nk2 = 2\nk3 = 3", KV, 3),
    ("k1\u2028x = 1\nk2 = 2\nk3 = 3", KV, 3),
    ("-- a\n-- b\n-- c", ["^-- .+"], 3),
    ("-- a\n--b\n-- c\n-- ", ["^-- .+"], 3),
    ("  -- a\n-- b\n-- c", ["^-- .+"], 3),
    ("- a\n* b\n- c\n- d", ["^- .+"], 3),
    ("- a\n* b\n- c", ["^- .+", "^\\* .+"], 3),
    ("→ a\n→ b\n→ c", ["^\u2192 .+"], 3),
    ("-> a\n-> b\n-> c", ["^\u2192 .+"], 3),
    ("# Title\n## Sub\ntext", ["^#{1,6} \\w+"], 2),
    ("| a | b |\n|---|---|\n| 1 | 2 |", ["^\\|.*\\|$"], 3),
    ("| a | b |\n|---|---|\n| 1 | 2 |\n", ["^\\|.*\\|$"], 4),
    ("**Bold** start\nplain\n**Another**", ["^\\*\\*\\w+\\*\\*"], 2),
    ("", ["^.*$"], 1),
    ("", ["^.+$"], 1),
    ("one line", [], 0),
    ("one line", [], 1),
]
STRING_CASES = [
    ("See [ref:2] for details.", ["[ref:2]"], ["\\[ref:2\\]"]),
    ("See ref 2 for details.", ["[ref:2]"], ["\\[ref:2\\]"]),
    ("Sources [web:3][web:5] and [web:6], [web:7].", ["[web:3]", "[web:5]", "[web:6]", "[web:7]"], ["\\[web:3\\]", "\\[web:5\\]", "\\[web:6\\]", "\\[web:7\\]"]),
    ("Sources [web:3][web:5] and [web:6].", ["[web:3]", "[web:5]", "[web:6]", "[web:7]"], ["\\[web:3\\]", "\\[web:5\\]", "\\[web:6\\]", "\\[web:7\\]"]),
    ("Cited [4] and [5].", ["[4]"], ["\\[\\d+\\]"]),
    ("Cited [4] twice [4].", ["[4]"], ["\\[\\d+\\]"]),
    ("Cited [ref:1] [ref:2] [ref:12]", ["[ref:1]", "[ref:2]"], ["\\[ref:\\d+\\]"]),
    ("Nothing cited.", [], ["\\[\\d+\\]"]),
    ("Nothing cited.", [], []),
    ("[WEB:1]", ["[web:1]"], ["(?i)\\[web:\\d\\]"]),
]

out = {"regex": [], "string_match": []}
for text, patterns, minimum in REGEX_CASES:
    verifier = {"type": "regex", "verify_regex": patterns}
    if minimum is not None:
        verifier["verify_min_matches"] = minimum
    reward, details = server._verify_regex(text, verifier)
    out["regex"].append({"text": text, "verifier": verifier, "reward": reward, "match_details": details})
for text, markers, patterns in STRING_CASES:
    verifier = {"type": "string_match", "expected_markers": markers, "patterns": patterns}
    reward, details = server._verify_string_match(text, verifier)
    out["string_match"].append({"text": text, "verifier": verifier, "reward": reward, "match_details": details})
json.dump({"source": "NVIDIA-NeMo/Gym 07d6b0d resources_servers/format_verification/app.py", "python": sys.version.split()[0], **out}, sys.stdout, ensure_ascii=False, indent=1)
print()
