#!/usr/bin/python3
"""Packs langdetect 1.0.9's data (55 language profiles, n-gram normalisation tables) into
langdetect_data.json.gz for the TypeScript port. Run with Debian's python3 after
`apt-get install python3-langdetect` (the same files as the PyPI release; Apache-2.0,
(c) 2014-2015 Michal Danilak, profiles (c) 2010-2014 Cybozu Labs / Nakatani Shuyo)."""
import gzip
import json
import os

import langdetect
from langdetect.utils.ngram import NGram

HERE = os.path.dirname(os.path.abspath(__file__))
profiles_dir = os.path.join(os.path.dirname(langdetect.__file__), "profiles")
profiles = {}
for name in sorted(os.listdir(profiles_dir)):
    with open(os.path.join(profiles_dir, name), encoding="utf-8") as f:
        data = json.load(f)
    profiles[data["name"]] = {"n_words": data["n_words"], "freq": data["freq"]}
data = {
    "version": "langdetect 1.0.9",
    "profiles": profiles,
    "latin1_excluded": NGram.LATIN1_EXCLUDED,
    "cjk_classes": NGram.CJK_CLASS,
    "vi_to_normalize": NGram.TO_NORMALIZE_VI_CHARS,
    "vi_dmark_class": NGram.DMARK_CLASS,
    "vi_normalized": NGram.NORMALIZED_VI_CHARS,
}
raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
with open(os.path.join(HERE, "langdetect_data.json.gz"), "wb") as f:
    f.write(gzip.compress(raw, compresslevel=9, mtime=0))
