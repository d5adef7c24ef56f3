#!/usr/bin/python3
"""Writes reference outputs of NLTK (Punkt + NLTKWordTokenizer) and langdetect for the TypeScript ports.

Run with Debian's python3 after `apt-get install python3-nltk python3-langdetect` (NLTK 3.8,
langdetect 1.0.9); the TS tests compare against the JSON this writes and never need Python.
Punkt is given the same hand-built English parameters as punkt_english.ts (NLTK's trained
`punkt_tab/english` is not installable here), so the comparison checks the algorithm port exactly.
"""
import json
import os
import re
import sys

import langdetect.detector_factory  # noqa: E402
_listdir = os.listdir
os.listdir = lambda p: sorted(_listdir(p))  # the TS port loads profiles in sorted order
from nltk.tokenize.destructive import NLTKWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))


def english_params():
    src = open(os.path.join(HERE, "..", "punkt_english.ts"), encoding="utf-8").read()
    abbrev_block = src.split("export const ABBREVIATIONS")[1].split("]);")[0]
    ortho_block = src.split("export const ORTHO_LOWER_WORDS")[1].split(").split")[0]
    params = PunktParameters()
    params.abbrev_types = set(re.findall(r'"([^"]+)"', re.sub(r"//[^\n]*", "", abbrev_block)))
    words = "".join(re.findall(r'"([^"]*)"', ortho_block)).split(" ")
    for w in words:
        params.ortho_context[w] = (1 << 1) | (1 << 5)
    return params


# IFEval's instructions_util.split_into_sentences, for checking the regex translation of the TS port.
alphabets = "([A-Za-z])"
prefixes = "(Mr|St|Mrs|Ms|Dr)[.]"
suffixes = "(Inc|Ltd|Jr|Sr|Co)"
starters = r"(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He\s|She\s|It\s|They\s|Their\s|Our\s|We\s|But\s|However\s|That\s|This\s|Wherever)"
acronyms = "([A-Z][.][A-Z][.](?:[A-Z][.])?)"
websites = "[.](com|net|org|io|gov|edu|me)"
digits = "([0-9])"
multiple_dots = r"\.{2,}"


def split_into_sentences(text):
    text = " " + text + "  "
    text = text.replace("\n", " ")
    text = re.sub(prefixes, "\\1<prd>", text)
    text = re.sub(websites, "<prd>\\1", text)
    text = re.sub(digits + "[.]" + digits, "\\1<prd>\\2", text)
    text = re.sub(multiple_dots, lambda match: "<prd>" * len(match.group(0)) + "<stop>", text)
    if "Ph.D" in text:
        text = text.replace("Ph.D.", "Ph<prd>D<prd>")
    text = re.sub(r"\s" + alphabets + "[.] ", " \\1<prd> ", text)
    text = re.sub(acronyms + " " + starters, "\\1<stop> \\2", text)
    text = re.sub(alphabets + "[.]" + alphabets + "[.]" + alphabets + "[.]", "\\1<prd>\\2<prd>\\3<prd>", text)
    text = re.sub(alphabets + "[.]" + alphabets + "[.]", "\\1<prd>\\2<prd>", text)
    text = re.sub(" " + suffixes + "[.] " + starters, " \\1<stop> \\2", text)
    text = re.sub(" " + suffixes + "[.]", " \\1<prd>", text)
    text = re.sub(" " + alphabets + "[.]", " \\1<prd>", text)
    if "”" in text:
        text = text.replace(".”", "”.")
    if '"' in text:
        text = text.replace('."', '".')
    if "!" in text:
        text = text.replace('!"', '"!')
    if "?" in text:
        text = text.replace('?"', '"?')
    text = text.replace(".", ".<stop>")
    text = text.replace("?", "?<stop>")
    text = text.replace("!", "!<stop>")
    text = text.replace("<prd>", ".")
    sentences = text.split("<stop>")
    sentences = [s.strip() for s in sentences]
    if sentences and not sentences[-1]:
        sentences = sentences[:-1]
    return sentences


def main():
    cases = json.load(open(os.path.join(HERE, "text_cases.json"), encoding="utf-8"))
    tok = PunktSentenceTokenizer(english_params())
    wt = NLTKWordTokenizer()
    punkt = []
    for text in cases["sentences"]:
        sents = tok.tokenize(text)
        words = [w for s in sents for w in wt.tokenize(s)]
        punkt.append({
            "text": text,
            "sentences": sents,
            "words": words,
            "ifeval_sentences": split_into_sentences(text),
            "word_count": len(re.findall(r"\w+", text)),
        })
    out = {"punkt": punkt}
    if "--langdetect" in sys.argv:
        from langdetect import DetectorFactory, detect_langs
        from langdetect.lang_detect_exception import LangDetectException

        DetectorFactory.seed = 0
        ld = []
        for text in cases["languages"]:
            try:
                langs = [[l.lang, l.prob] for l in detect_langs(text)]
            except LangDetectException:
                langs = None
            ld.append({"text": text, "langs": langs})
        out["langdetect"] = ld
    json.dump(out, open(os.path.join(HERE, "reference.json"), "w", encoding="utf-8"), ensure_ascii=False, indent=1)


main()
