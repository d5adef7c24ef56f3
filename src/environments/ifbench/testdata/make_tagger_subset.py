#!/usr/bin/python3
"""Writes ../tagger_first_token.json.gz: what NLTK's English averaged-perceptron tagger needs to tag the
FIRST token of a text (IFBench's words:start_verb only reads that tag): the tag dictionary, the classes,
and the weights of every feature the first position can produce (its previous tags and words are the
fixed -START- markers). Source: nltk_data gh-pages 5db857e taggers/averaged_perceptron_tagger.zip
(the 2015 trained model; NLTK 3.9+'s averaged_perceptron_tagger_eng JSON holds it in another format).
Usage: python3 make_tagger_subset.py PATH/averaged_perceptron_tagger.pickle | gzip -9n > ../tagger_first_token.json.gz
"""
import json
import pickle
import sys

weights, tagdict, classes = pickle.load(open(sys.argv[1], "rb"), encoding="latin1")
FIXED = {"bias", "i-1 tag -START-", "i-2 tag -START2-", "i tag+i-2 tag -START- -START2-", "i-1 word -START2-", "i-1 suffix T2-", "i-2 word -START-"}
FAMILIES = ("i suffix ", "i pref1 ", "i word ", "i-1 tag+i word -START- ", "i+1 word ", "i+1 suffix ", "i+2 word ")
subset = {k: v for k, v in weights.items() if k in FIXED or k.startswith(FAMILIES)}
json.dump({"classes": sorted(classes), "tagdict": tagdict, "weights": subset}, sys.stdout, ensure_ascii=False, separators=(",", ":"))
print(f"{len(subset)} of {len(weights)} features", file=sys.stderr)
