#!/usr/bin/python3
"""Runs AllenAI IFBench's own checkers (commit c6767a19) on IFBench's sample outputs and writes what
they decide, for the TypeScript port to be compared against (reference.json.gz).

Made with Debian's python3 (3.14) and python3-nltk 3.10.3, python3-emoji 2.15.0, syllapy 0.7.2 from its
source (github mholtzscher/syllapy 9b95c13), inside /tmp/ngpeer. Layout expected under WORK (argv[1]):
  ifb/        IFBench at c6767a19 (git archive)
  syllapy/    syllapy's package folder
  raw/        nltk_data zips unpacked: stopwords/, averaged_perceptron_tagger/ (nltk/nltk_data gh-pages 5db857e)
NLTK 3.10 reads `punkt_tab` and `averaged_perceptron_tagger_eng`, which that nltk_data snapshot lacks:
the tagger's JSON is written from the 2015 pickle it has (the same trained model), and punkt_tab from
the hand-built English parameters Gymkit's Punkt uses (src/verifiers/text/punkt_english.ts), so the
comparison checks the checkers and the tagger exactly, and the sentence splitter against those params.
spaCy is never used by a checker (IFBench only downloads a model at import): a stub module stands in.
"""
import json
import os
import pickle
import re
import shutil
import sys
import types

WORK = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(WORK, "nltk_data")
os.makedirs(os.path.join(data, "corpora"), exist_ok=True)
if not os.path.exists(os.path.join(data, "corpora", "stopwords")):
    shutil.copytree(os.path.join(WORK, "raw", "stopwords"), os.path.join(data, "corpora", "stopwords"))
import nltk  # noqa: E402

nltk.data.path.insert(0, data)
nltk.download = lambda *a, **k: True  # offline: everything is in `data`

# Tagger: the pickle's (weights, tagdict, classes) saved in NLTK 3.10's JSON layout.
tagger_dir = os.path.join(data, "taggers", "averaged_perceptron_tagger_eng")
if not os.path.isdir(tagger_dir):
    from nltk.tag.perceptron import PerceptronTagger

    weights, tagdict, classes = pickle.load(open(os.path.join(WORK, "raw", "averaged_perceptron_tagger", "averaged_perceptron_tagger.pickle"), "rb"), encoding="latin1")
    t = PerceptronTagger(load=False)
    t.model.weights, t.tagdict, t.classes = weights, tagdict, set(classes)
    os.makedirs(tagger_dir)
    t.save_to_json(lang="eng", loc=tagger_dir)

# punkt_tab/english from Gymkit's English parameters.
punkt_dir = os.path.join(data, "tokenizers", "punkt_tab", "english")
if not os.path.isdir(punkt_dir):
    from nltk.tokenize.punkt import PunktParameters, save_punkt_params

    src = open(os.path.join(HERE, "..", "..", "..", "verifiers", "text", "punkt_english.ts"), encoding="utf-8").read()
    abbrev_block = src.split("export const ABBREVIATIONS")[1].split("]);")[0]
    ortho_block = src.split("export const ORTHO_LOWER_WORDS")[1].split(").split")[0]
    params = PunktParameters()
    params.abbrev_types = set(re.findall(r'"([^"]+)"', re.sub(r"//[^\n]*", "", abbrev_block)))
    for w in "".join(re.findall(r'"([^"]*)"', ortho_block)).split(" "):
        params.ortho_context[w] = (1 << 1) | (1 << 5)
    os.makedirs(punkt_dir)
    save_punkt_params(params, dir=punkt_dir)

spacy = types.ModuleType("spacy")
spacy.cli = types.ModuleType("spacy.cli")
spacy.cli.download = lambda *a, **k: None
sys.modules["spacy"], sys.modules["spacy.cli"] = spacy, spacy.cli
# syllapy 0.7.2 finds its data.csv through setuptools' pkg_resources, which Debian's 3.14 lacks.
pkg_resources = types.ModuleType("pkg_resources")
pkg_resources.resource_filename = lambda module, name: os.path.join(os.path.dirname(sys.modules[module].__file__), name)
sys.modules["pkg_resources"] = pkg_resources
sys.path.insert(0, os.path.join(WORK, "ifb"))
sys.path.insert(0, WORK)
import instructions_registry  # noqa: E402

REGISTRY = instructions_registry.INSTRUCTION_DICT


def variants(response):
    lines = response.split("\n")
    first, last, both = "\n".join(lines[1:]).strip(), "\n".join(lines[:-1]).strip(), "\n".join(lines[1:-1]).strip()
    return [response, response.replace("*", ""), first, last, both, first.replace("*", ""), last.replace("*", ""), both.replace("*", "")]


def decide(instruction_id, kwargs, prompt, text):
    """One checker on one text: True/False, or the exception's class name."""
    try:
        inst = REGISTRY[instruction_id](instruction_id)
        inst.build_description(**{k: v for k, v in (kwargs or {}).items() if v is not None})
        args = inst.get_instruction_args()
        if args and "prompt" in args:
            inst.build_description(prompt=prompt)
        return bool(inst.check_following(text))
    except Exception as e:  # noqa: BLE001
        return type(e).__name__


rows = [json.loads(l) for l in open(os.path.join(WORK, "ifb", "data", "IFBench_test.jsonl"))]
outputs = {json.loads(l)["prompt"]: json.loads(l)["response"] for l in open(os.path.join(WORK, "ifb", "data", "sample_output.jsonl"))}
cases = []
for row in rows:
    response = outputs.get(row["prompt"])
    if response is None:
        continue
    for instruction_id, kwargs in zip(row["instruction_id_list"], row["kwargs"]):
        # NeMo Gym's prepared rows carry every number as a float (39.0): score them that way.
        kwargs = {k: float(v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in kwargs.items()}
        per_variant = [decide(instruction_id, kwargs, row["prompt"], v) if v.strip() else None for v in variants(response)]
        cases.append({"key": row["key"], "instruction_id": instruction_id, "kwargs": kwargs, "variants": per_variant})
# Gymkit's own texts for the checkers the sample barely exercises (CSV, multiple choice, …).
mcq = "\n\n".join(f"Question {i + 1}: " + "Why " * (i + 1) + "?\n" + "\n".join(f"{l}) option {l}" for l in "ABCDE") for i in range(4))
city = "ID,Country,City,Year,Count\n" + "\n".join(f"{i},France,Paris,2020,{i}" for i in range(7))
special = "ProductID,Category,Brand,Price,Stock\n" + "\n".join(f'{i},Tools,"Acme & Co",9.99,{i}' for i in range(14))
quotes = 'StudentID\tSubject\tGrade\tSemester\tScore\n' + "\n".join('"1"\t"Math"\t"A"\t"Fall"\t"90"' for _ in range(3))
EXTRA = {
    "custom:mcq_count_length": [mcq, mcq.replace("Why Why Why Why", "Why"), "Intro\n" + mcq, mcq.replace("E) option E", ""), mcq.replace("Question 3: ", "Question 3) ")],
    "custom:csv_city": [city, city + "\n", city + "\n\n", city.replace("Paris", '"Par,is"'), city.replace("Paris", '"Pa\nris"'), city.replace("ID,", "Id,"), city + "\n8,a,b,c,d", city.replace("2020", "2020\r5"), city.replace("Paris", 'Pa"ris')],
    "custom:csv_special_character": [special, special.replace('"Acme & Co"', "Acme"), '"ProductID", Category,Brand,Price,Stock\n' + special.split("\n", 1)[1], special.replace("Tools", '"To\nols"')],
    "custom:csv_quotes": [quotes, '"StudentID"\t"Subject"\t"Grade"\t"Semester"\t"Score"\n' + quotes.split("\n", 1)[1], '"StudentID"\t"Subject"\t"Grade"\t"Semester"\t"Score"\n' + quotes.split("\n", 1)[1].replace('"A"', '" "'), quotes, quotes.replace('"Math"', "Math"), quotes.replace('"A"', '""'), quotes.replace("Score", '"Score"'), quotes + "\n"],
    "format:line_indent": ["a\n b\n  c", "a\n\n\n b\n  c", "a\n b\n b", " a\n\n  b\n\n\n   c\n"],
    "format:no_bullets_bullets": ["One. Two.\n* a\n* b", "One.\n\nTwo.\n* a\n* b", "One. Two.\n* a\ntext\n* b"],
}
for n, (instruction_id, texts) in enumerate(EXTRA.items()):
    for m, text in enumerate(texts):
        key = f"gymkit-{n}-{m}"
        rows.append({"key": key, "prompt": key, "instruction_id_list": [instruction_id], "kwargs": [{}]})
        outputs[key] = text
        cases.append({"key": key, "instruction_id": instruction_id, "kwargs": {}, "variants": [decide(instruction_id, {}, key, v) if v.strip() else None for v in variants(text)]})

# The tagger on its own: every response variant's first tokens and the first token's tag.
first_tags = []
for row in rows:
    response = outputs.get(row["prompt"])
    for v in variants(response or ""):
        tokens = nltk.word_tokenize(v)
        if tokens:
            first_tags.append({"text": v, "tokens": tokens[:3], "tag": nltk.pos_tag(tokens)[0][1]})
for word in ["Run", "run", "Examine", "Write", "Consider", "Imagine", "Title", "1999", "12", "self-care", "-x", "Zzyzx", "Gateway", "Please", "Let", "Discuss", "Analyze", "Describe", "Explore"]:
    for tail in [[], ["the"], ["the", "problem"], ["!"], ["2024", "now"]]:
        tokens = [word] + tail
        first_tags.append({"text": None, "tokens": tokens, "tag": nltk.pos_tag(tokens)[0][1]})
json.dump({"first_tags": first_tags, "cases": cases, "responses": {r["key"]: [r["prompt"], outputs.get(r["prompt"])] for r in rows}}, sys.stdout, ensure_ascii=False)
print(f"{len(cases)} instruction checks", file=sys.stderr)
