// IFBench's instruction checkers (allenai/IFBench commit c6767a19, instructions.py), as NeMo Gym's
// ifbench server (07d6b0d) runs them: each checker is built from the row's kwargs with null values
// dropped, then asked about a response text. Python's semantics are kept where they decide a verdict:
// string methods on code points, `string.punctuation` (ASCII), `str.split()` on Python whitespace,
// and the kwargs' numbers being floats (NeMo Gym's prepared rows write every number as `39.0`; a
// float used as a list index raises, which NeMo Gym scores as not followed).
//
// A checker throws when the reference would raise (the instruction then counts as not followed):
// a kwarg its `build_description` does not take, a float index, an empty division, and the cases
// where the reference draws a random value because a kwarg is missing (its verdict would be random).
import { splitIntoSentences, countWords } from "../../verifiers/text/ifeval_util.js";
import { pyFindall, pyMatch, pyReSplit } from "../../verifiers/text/pyregex.js";
import { isPySpace, pyLstrip, pyReplace, pyReverse, pyRstrip, pySplit, pyStrip, pyIsLower, pyIsUpper, pyLen } from "../../verifiers/text/pystr.js";
import { wordTokenize } from "../../verifiers/text/word_tokenize.js";
import { EMOJI_RANGES } from "./emoji_data.js";
import { ENGLISH_STOPWORDS } from "./stopwords_english.js";
import { syllapyCount } from "./syllapy.js";
import { firstTokenTag } from "./tagger.js";
import { ReferenceRaises } from "./checkers_errors.js";
import { pyCsvRows } from "./pycsv.js";

export type Kwargs = Record<string, unknown>;
export type Check = (value: string) => boolean;

export interface Checker {
  /** The keyword arguments `build_description` takes; "any" for `**kwargs`. */
  accepts: readonly string[] | "any";
  build(kwargs: Kwargs): Check;
}

/** What the reference raises (TypeError, ValueError, IndexError, ZeroDivisionError, csv.Error, …). */
export { ReferenceRaises };

export const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
const PUNCT_SET = new Set(Array.from(PUNCTUATION));
const PUNCT_SPACE = PUNCTUATION + " ";

/** `s.translate(str.maketrans('', '', string.punctuation))`. */
const dropPunct = (s: string) => Array.from(s).filter((c) => !PUNCT_SET.has(c)).join("");
const chars = (s: string) => Array.from(s);
const first = (s: string) => {
  const c = chars(s)[0];
  if (c === undefined) throw new ReferenceRaises("string index out of range");
  return c;
};
const last = (s: string) => {
  const a = chars(s);
  if (a.length === 0) throw new ReferenceRaises("string index out of range");
  return a[a.length - 1]!;
};
/** Python `list[i]` for an int index (negative from the end); raises out of range. */
function at<T>(items: readonly T[], i: number): T {
  const j = i < 0 ? items.length + i : i;
  if (j < 0 || j >= items.length) throw new ReferenceRaises("list index out of range");
  return items[j]!;
}
/** `haystack.count(needle)`. */
function pyCount(haystack: string, needle: string): number {
  if (needle === "") return pyLen(haystack) + 1;
  return haystack.split(needle).length - 1;
}
/** Remove every empty string, as `while '' in words: words.remove('')`. */
const nonEmpty = (items: string[]) => items.filter((w) => w !== "");

function num(kwargs: Kwargs, key: string): number | undefined {
  const value = kwargs[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number") throw new ReferenceRaises(`${key}: ${JSON.stringify(value)} is not a number`);
  return value;
}
function str(kwargs: Kwargs, key: string): string | undefined {
  const value = kwargs[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new ReferenceRaises(`${key}: ${JSON.stringify(value)} is not a string`);
  return value;
}
/** The reference draws a random value here: its verdict is not reproducible. */
function random(what: string): never {
  throw new ReferenceRaises(`the reference draws a random ${what}`);
}
/** A count that the reference compares, or replaces by a random one when missing or negative. */
function countArg(kwargs: Kwargs, key: string): number {
  const n = num(kwargs, key);
  if (n === undefined || n < 0) random(key);
  return n;
}
/** The kwargs' numbers are floats: used as a list index or slice bound, Python raises TypeError. */
function floatIndex(what: string): never {
  throw new ReferenceRaises(`${what}: list indices must be integers, not float`);
}

const none = (build: () => Check): Checker => ({ accepts: [], build: () => build() });
const any = (build: () => Check): Checker => ({ accepts: "any", build: () => build() });

const STOPWORDS = new Set(ENGLISH_STOPWORDS);
const CONJUNCTIONS = new Set(["and", "but", "for", "nor", "or", "so", "yet"]);
const PERSON_NAMES = "Emma Liam Sophia Jackson Olivia Noah Ava Lucas Isabella Mason Mia Ethan Charlotte Alexander Amelia Benjamin Harper Leo Zoe Daniel Chloe Samuel Lily Matthew Grace Owen Abigail Gabriel Ella Jacob Scarlett Nathan Victoria Elijah Layla Nicholas Audrey David Hannah Christopher Penelope Thomas Nora Andrew Aria Joseph Claire Ryan Stella Jonathan".split(" ");
const PRONOUNS = new Set("i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves".split(" "));
const PRIMES = new Set([2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]);
const CAPITALS = "Reykjavik Helsinki Oslo Tallinn Stockholm Riga Moscow Copenhagen Vilnius Minsk Dublin Berlin Amsterdam Warsaw London Brussels Prague Luxembourg Paris Vienna Bratislava Budapest Vaduz Chisinau Bern Ljubljana Zagreb".split(" ");

function isEmoji(ch: string): boolean {
  if (Array.from(ch).length !== 1) return false;
  const cp = ch.codePointAt(0)!;
  let lo = 0;
  let hi = EMOJI_RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = EMOJI_RANGES[mid]!;
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return true;
  }
  return false;
}

/** `unicodedata.normalize('NFKD', s).encode('ASCII', 'ignore').decode('ASCII')`. */
const asciiFold = (s: string) => Array.from(s.normalize("NFKD")).filter((c) => c.codePointAt(0)! < 0x80).join("");

/** Python `str.isdigit()` for the digits a response may hold (decimal digits and super/subscripts). */
const isDigitString = (s: string) => s !== "" && /^[\p{Nd}\u00b2\u00b3\u00b9\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c\u2488-\u2490\u24f5-\u24fd\u2776-\u277e\u2780-\u2788\u278a-\u2792]+$/u.test(s);

export const CHECKERS: Readonly<Record<string, Checker>> = {
  "count:word_count_range": {
    accepts: ["min_words", "max_words"],
    build: (kw) => {
      const min = num(kw, "min_words");
      const max = num(kw, "max_words");
      if (min === undefined || min < 0 || max === undefined || max < 0) random("word range");
      return (value) => min <= countWords(value) && countWords(value) <= max;
    },
  },
  "count:unique_word_count": {
    accepts: ["N"],
    build: (kw) => {
      const n = countArg(kw, "N");
      return (value) => new Set(pySplit(value.toLowerCase()).map((w) => pyStrip(w, PUNCT_SPACE))).size >= n;
    },
  },
  "ratio:stop_words": {
    accepts: ["percentage"],
    build: (kw) => {
      const percentage = countArg(kw, "percentage");
      return (value) => {
        const words = countWords(value);
        const stop = (pyFindall(String.raw`\w+`, value) as string[]).filter((t) => STOPWORDS.has(t.toLowerCase())).length;
        if (words === 0) throw new ReferenceRaises("division by zero");
        return (stop / words) * 100 <= percentage;
      };
    },
  },
  "ratio:sentence_type": none(() => (value) => {
    const s = splitIntoSentences(value);
    return s.filter((x) => x.endsWith(".")).length === 2 * s.filter((x) => x.endsWith("?")).length;
  }),
  "ratio:sentence_balance": none(() => (value) => {
    const s = splitIntoSentences(value);
    const d = s.filter((x) => x.endsWith(".")).length;
    return d === s.filter((x) => x.endsWith("?")).length && d === s.filter((x) => x.endsWith("!")).length;
  }),
  "count:conjunctions": {
    accepts: ["small_n"],
    build: (kw) => {
      const n = countArg(kw, "small_n");
      return (value) => new Set(pySplit(value).filter((w) => CONJUNCTIONS.has(pyStrip(w, PUNCT_SPACE).toLowerCase()))).size >= n;
    },
  },
  "count:person_names": {
    accepts: ["N"],
    build: (kw) => {
      const n = countArg(kw, "N");
      return (value) => PERSON_NAMES.filter((name) => value.includes(name)).length >= n;
    },
  },
  "ratio:overlap": {
    accepts: ["reference_text", "percentage"],
    build: (kw) => {
      const reference = str(kw, "reference_text");
      const percentage = countArg(kw, "percentage");
      const trigrams = (s: string) => {
        const c = chars(s);
        const out = new Set<string>();
        for (let i = 0; i + 3 <= c.length; i++) out.add(JSON.stringify(c.slice(i, i + 3)));
        return out;
      };
      return (value) => {
        if (reference === undefined) throw new ReferenceRaises("reference_text is None");
        const ours = trigrams(value);
        const theirs = trigrams(reference);
        if (ours.size === 0) throw new ReferenceRaises("division by zero");
        const overlap = [...ours].filter((t) => theirs.has(t)).length / ours.size;
        return percentage - 2 <= overlap * 100 && overlap * 100 <= percentage + 2;
      };
    },
  },
  "count:numbers": {
    accepts: ["N"],
    build: (kw) => {
      const n = countArg(kw, "N");
      return (value) => pyFindall(String.raw`\d+`, dropPunct(value)).length === n;
    },
  },
  "words:alphabet": none(() => (value) => {
    const words = pySplit(pyStrip(dropPunct(value), PUNCT_SPACE));
    if (words.length === 0) return false;
    const alphabet = "abcdefghijklmnopqrstuvwxyz";
    let letter = first(words[0]!).toLowerCase();
    if (!alphabet.includes(letter) || letter.length !== 1) return false;
    for (const raw of words.slice(1)) {
      const word = pyStrip(raw, PUNCT_SPACE).toLowerCase();
      if (!word) continue;
      letter = alphabet[(alphabet.indexOf(letter) + 1) % 26]!;
      if (first(word) !== letter) return false;
    }
    return true;
  }),
  "words:vowel": none(() => (value) => {
    const paragraphs = pyStrip(value).split("\n");
    if (paragraphs.length !== 1) return false;
    return new Set(chars(paragraphs[0]!.toLowerCase()).filter((c) => "aeiou".includes(c))).size <= 3;
  }),
  "words:consonants": none(() => (value) => {
    const consonants = new Set(Array.from("bcdfghjklmnpqrstvwxyz"));
    for (const word of pySplit(pyStrip(value.toLowerCase()))) {
      const c = chars(word);
      let cluster = false;
      for (let i = 0; i < c.length - 1; i++) {
        if (consonants.has(c[i]!) && consonants.has(c[i + 1]!)) {
          cluster = true;
          break;
        }
      }
      if (!cluster) return false;
    }
    return true;
  }),
  "sentence:alliteration_increment": none(() => (value) => {
    let previous = -1;
    for (const sentence of splitIntoSentences(value)) {
      const words = pySplit(sentence.toLowerCase()).map((w) => pyLstrip(w, PUNCT_SPACE)).filter((w) => w !== "");
      let alliteration = 0;
      let run = false;
      for (let i = 0; i < words.length - 1; i++) {
        if (first(words[i]!) === first(words[i + 1]!)) {
          alliteration += run ? 1 : 2;
          run = true;
        } else {
          run = false;
        }
      }
      if (alliteration <= previous) return false;
      previous = alliteration;
    }
    return true;
  }),
  "words:palindrome": none(() => (value) => pySplit(dropPunct(value).toLowerCase()).filter((w) => w === pyReverse(w) && pyLen(w) >= 5).length >= 10),
  "count:punctuation": none(() => (value) => {
    if (!(value.includes("!?") || value.includes("?!") || value.includes("\u203d"))) return false;
    let rest = value.replace("?!", "");
    if (rest.length === value.length) rest = value.replace("!?", "");
    const wanted = new Set([".", ",", "!", "?", ";", ":"]);
    for (const c of chars(rest)) wanted.delete(c);
    return wanted.size === 0;
  }),
  "format:parentheses": none(() => (value) => {
    let levels: string[] = [];
    let maxDepth = 0;
    const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
    for (const c of chars(value)) {
      if ("([{".includes(c)) {
        levels.push(c);
        maxDepth = Math.max(maxDepth, levels.length);
      } else if (")]}".includes(c)) {
        if (levels.length > 0 && levels[levels.length - 1] === pairs[c]) {
          levels.pop();
          if (maxDepth >= 5 && levels.length < maxDepth) return true;
        } else {
          levels = [];
          maxDepth = 0;
        }
      }
    }
    return false;
  }),
  "format:quotes": none(() => (value) => {
    const levels: string[] = [];
    let reached = 0;
    let depth = 0;
    for (const c of chars(value)) {
      if (levels.length !== 0 && c === levels[levels.length - 1]) {
        levels.pop();
        depth -= 1;
        if (reached - depth >= 3) return true;
      } else if (c === '"' || c === "'") {
        levels.push(c);
        depth += 1;
        reached = Math.max(reached, depth);
      }
    }
    return false;
  }),
  "words:prime_lengths": none(() => (value) => pySplit(dropPunct(value)).every((w) => PRIMES.has(pyLen(w)))),
  "format:options": {
    accepts: ["options"],
    build: (kw) => {
      const options = str(kw, "options");
      if (options === undefined) random("options");
      const strict = pyMatch(String.raw`\W*[aA]\W*[bB]\W*[cC]\W*`, options) !== null;
      const separator = options.includes("/") ? "/" : options.includes("or") ? "or" : ",";
      const list = options.split(separator).map((o) => pyStrip(o));
      return (value) => {
        if (strict) return list.includes(value);
        const v = pyStrip(value, PUNCT_SPACE).toLowerCase();
        return list.some((o) => pyStrip(o, PUNCT_SPACE).toLowerCase() === v);
      };
    },
  },
  "format:newline": none(() => (value) => {
    const v = dropPunct(value);
    return nonEmpty(pyStrip(v).split("\n")).length === pySplit(pyStrip(v)).length;
  }),
  "format:emoji": none(() => (value) => {
    const sentences = splitIntoSentences(value);
    for (let i = 0; i < sentences.length; i++) {
      const stripped = pyStrip(dropPunct(sentences[i]!));
      if (!stripped) return false;
      const c = chars(stripped);
      const lastChar = c[c.length - 1]!;
      const secondLast = c.length > 1 ? c[c.length - 2]! : lastChar;
      if (!isEmoji(lastChar) && !isEmoji(secondLast)) {
        if (i < sentences.length - 1) {
          const next = pyStrip(dropPunct(sentences[i + 1]!));
          if (!next) return false;
          if (!isEmoji(first(next))) return false;
        } else {
          return false;
        }
      }
    }
    return true;
  }),
  "ratio:sentence_words": none(() => (value) => {
    const sentences = splitIntoSentences(value);
    if (sentences.length !== 3) return false;
    const n = pyLen(pyStrip(sentences[0]!));
    return sentences.every((s) => pyLen(pyStrip(s)) === n);
  }),
  "count:words_japanese": {
    accepts: ["N"],
    build: (kw) => {
      const n = num(kw, "N");
      // The description is built with `N % 10` on the kwarg itself: a missing N raises there.
      if (n === undefined) throw new ReferenceRaises("N is None");
      if (n < 0) random("N");
      return (value) => {
        const words = pySplit(value);
        for (let i = 0; i < words.length; i++) {
          const word = pyStrip(words[i]!, PUNCT_SPACE);
          if (n === 0) throw new ReferenceRaises("float modulo");
          if ((i + 1) % n === 0 && word && !isDigitString(word) && !/[\u3040-\u30ff\u4e00-\u9fff]/u.test(word)) return false;
        }
        return true;
      };
    },
  },
  "words:start_verb": none(() => (value) => {
    const tokens = wordTokenize(value);
    return tokens.length > 0 && (firstTokenTag(tokens) ?? "").includes("VB");
  }),
  "words:repeats": {
    accepts: ["small_n"],
    build: (kw) => {
      const n = countArg(kw, "small_n");
      return (value) => {
        const counts = new Map<string, number>();
        for (const w of pySplit(dropPunct(value.toLowerCase()))) counts.set(w, (counts.get(w) ?? 0) + 1);
        return [...counts.values()].every((c) => c <= n);
      };
    },
  },
  "sentence:keyword": {
    accepts: ["word", "N"],
    build: (kw) => {
      const word = kw.word;
      if (!word) random("keyword");
      if (typeof word !== "string") throw new ReferenceRaises("word is not a string");
      const n = countArg(kw, "N");
      return (value) => {
        const sentences = splitIntoSentences(value);
        if (sentences.length < n) return false;
        return at(sentences, Math.trunc(n - 1)).toLowerCase().includes(word.toLowerCase());
      };
    },
  },
  "count:pronouns": {
    accepts: ["N"],
    build: (kw) => {
      const n = countArg(kw, "N");
      return (value) => pySplit(dropPunct(pyReplace(value, "/", " ").toLowerCase())).filter((w) => PRONOUNS.has(w)).length >= n;
    },
  },
  "words:odd_even_syllables": none(() => (value) => {
    const parity = pySplit(dropPunct(value).toLowerCase())
      .filter((w) => pyStrip(w) !== "")
      .map((w) => syllapyCount(w) % 2);
    return parity.every((p, i) => i === parity.length - 1 || p !== parity[i + 1]);
  }),
  "words:last_first": none(() => (value) => {
    const sentences = splitIntoSentences(value);
    for (let i = 0; i < sentences.length - 1; i++) {
      const lastWord = at(pySplit(pyRstrip(sentences[i]!, PUNCT_SPACE)), -1);
      const firstWord = at(pySplit(pyLstrip(sentences[i + 1]!, PUNCT_SPACE)), 0);
      if (lastWord.toLowerCase() !== firstWord.toLowerCase()) return false;
    }
    return true;
  }),
  "words:paragraph_last_first": none(() => (value) => {
    for (const raw of value.split("\n")) {
      const paragraph = pyStrip(raw).toLowerCase();
      if (!paragraph) continue;
      const words = pySplit(pyStrip(paragraph, PUNCT_SPACE));
      if (words.length === 0) continue;
      if (words[0] !== words[words.length - 1]) return false;
    }
    return true;
  }),
  "sentence:increment": {
    accepts: ["small_n"],
    build: (kw) => {
      const step = countArg(kw, "small_n");
      return (value) => {
        const sentences = splitIntoSentences(value);
        const wordsOf = (s: string) => nonEmpty(pySplit(pyStrip(dropPunct(s))));
        let previous = wordsOf(at(sentences, 0)).length;
        for (const sentence of sentences.slice(1)) {
          const n = wordsOf(sentence).length;
          if (n !== previous + step) return false;
          previous = n;
        }
        return true;
      };
    },
  },
  "words:no_consecutive": none(() => (value) => {
    const words = nonEmpty(pySplit(dropPunct(value.toLowerCase())));
    for (let i = 0; i < words.length - 1; i++) if (first(words[i]!) === first(words[i + 1]!)) return false;
    return true;
  }),
  "format:line_indent": none(() => (value) => {
    const lines = value.split("\n");
    // Python removes from the list it iterates: the line after each removed one is skipped.
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!pyStrip(line)) lines.splice(lines.indexOf(line), 1);
    }
    const indent = (l: string) => pyLen(l) - pyLen(pyLstrip(l, " "));
    for (let i = 0; i < lines.length - 1; i++) if (indent(lines[i + 1]!) <= indent(lines[i]!)) return false;
    return true;
  }),
  "format:quote_unquote": none(() => (value) => {
    let v = pyReplace(pyReplace(value, "\u201c", '"'), "\u201d", '"');
    v = pyReplace(v, "'\"'", "");
    v = pySplit(v).join("");
    if (v.includes('""')) return false;
    return last(pyStrip(v, "0123456789" + PUNCTUATION.replace('"', ""))) !== '"';
  }),
  "format:list": {
    accepts: ["sep"],
    build: (kw) => {
      const sep = str(kw, "sep");
      if (sep === undefined) random("separator");
      return (value) => pyCount(value, sep) >= 2;
    },
  },
  "format:thesis": none(() => (value) => {
    let index = value.indexOf("<i>");
    if (index === -1) {
      index = value.indexOf("<em>");
      if (index === -1) return false;
    }
    const v = value.slice(index);
    let end = v.indexOf("</i>");
    if (end === -1) {
      end = v.indexOf("</em>");
      if (end === -1) return false;
    }
    const cp = chars(v);
    const endCp = chars(v.slice(0, end)).length;
    if (pyStrip(cp.slice(3, endCp).join("")) === "") return false;
    return pyStrip(cp.slice(endCp + 4).join("")) !== "";
  }),
  "format:sub-bullets": none(() => (value) => value.split("*").slice(1).every((b) => b.includes("-"))),
  "format:no_bullets_bullets": none(() => (value) => {
    let prose = true;
    let sentences = 0;
    let bullets = 0;
    for (const line of value.split("\n")) {
      if (pyStrip(line).startsWith("*")) {
        prose = false;
        if (sentences < 2) return false;
        bullets += 1;
      } else if (prose) {
        // The reference reuses its flag for the line's sentence list: a line with none ends the prose.
        const found = splitIntoSentences(pyStrip(line));
        sentences += found.length;
        prose = found.length > 0;
      } else {
        return false;
      }
    }
    return bullets >= 2;
  }),
  "custom:multiples": any(() => (value) => {
    const numbers = pyFindall(String.raw`\d+`, pyReplace(value, ",", ", "));
    return JSON.stringify(numbers) === JSON.stringify(["14", "21", "28", "35", "42", "49"]);
  }),
  "custom:word_reverse": any(() => (value) => {
    const v = pySplit(dropPunct(pyStrip(value.toLowerCase()))).reverse().join(" ");
    if (!v.includes("bald eagle")) return false;
    return splitIntoSentences(v).includes(v);
  }),
  "custom:character_reverse": any(() => (value) => value.toLowerCase().includes("elgae dlab")),
  "custom:sentence_alphabet": any(() => (value) => {
    const sentences = splitIntoSentences(value);
    if (sentences.length !== 26) return false;
    return sentences.every((s, i) => first(at(pySplit(pyLstrip(s)), 0).toLowerCase()) === String.fromCharCode(97 + i));
  }),
  "custom:european_capitals_sort": any(() => (value) => {
    const capitals = asciiFold(value).split(",").filter((c) => pyStrip(c) !== "");
    if (capitals.length !== CAPITALS.length) return false;
    return capitals.every((c, i) => pyStrip(c) === CAPITALS[i]);
  }),
  "custom:reverse_newline": any(() => (value) => {
    const lines = value
      .split("\n")
      .map((l) => pyStrip(l, PUNCT_SPACE))
      .filter((l) => l !== "");
    const start = lines.findIndex((l) => l.includes("Zimbabwe"));
    if (start === -1) return false;
    const target = lines.slice(start);
    if (target.length < 52) return false;
    const normalized = target.map(asciiFold);
    const sorted = [...normalized].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    return normalized.every((l, i) => l === sorted[i]);
  }),
  "custom:date_format_list": any(() => (value) => {
    for (const raw of pyStrip(value).split(",")) {
      const date = pyStrip(raw);
      if (!pyMatch(String.raw`^\d{4}-\d{2}-\d{2}$`, date)) return false;
      const [y, m, d] = date.split("-").map((p) => Number.parseInt(p.normalize("NFKC"), 10)) as [number, number, number];
      if (y < 1769 || y > 1821 || m > 12) return false;
      if ([1, 3, 5, 7, 8, 10, 12].includes(m) && d > 31) return false;
      if ([4, 6, 9, 11].includes(m) && d > 30) return false;
      if (m === 2 && d > 29) return false;
    }
    return true;
  }),
  "custom:mcq_count_length": any(() => (value) => {
    const at0 = value.indexOf("Question");
    // `value[value.find('Question'):]`: not found is -1, the last character.
    const rest = at0 === -1 ? chars(value).slice(-1).join("") : value.slice(at0);
    if (rest !== value) return false;
    const pieces = pyReSplit(String.raw`\n*(?:Question \d+[\.|\):;]?\s*)`, value) as string[];
    const questions = (pieces[0] === "" ? pieces.slice(1) : pieces).map((q) => pyStrip(q)).filter((q) => q !== "");
    if (questions.length !== 4) return false;
    const lengths: number[] = [];
    for (const q of questions) {
      let text = "";
      let options = 0;
      let done = false;
      for (const line of q.split("\n")) {
        if (pyMatch(String.raw`^[A-Ea-e][\.|\)]\s*\w+`, pyStrip(line))) {
          options += 1;
          done = true;
        } else if (!done) text += " " + pyStrip(line);
      }
      if (options !== 5) return false;
      lengths.push(pyLen(pyStrip(text)));
    }
    return lengths.every((n, i) => i === lengths.length - 1 || n < lengths[i + 1]!);
  }),
  "custom:csv_city": any(() => (value) => {
    const data = pyCsvRows(value);
    if (data.length !== 8) return false;
    if (JSON.stringify(data[0]) !== JSON.stringify(["ID", "Country", "City", "Year", "Count"])) return false;
    return data.slice(1).every((row) => row.length === 5);
  }),
  "custom:csv_special_character": any(() => (value) => {
    const header = pyStrip(value.split("\n")[0]!);
    if (!pyMatch(String.raw`^(ProductID|"ProductID"),[ \t]*(Category|"Category"),[ \t]*(Brand|"Brand"),[ \t]*(Price|"Price"),[ \t]*(Stock|"Stock")$`, header)) return false;
    const data = pyCsvRows(pyReplace(value, '"', '"""'));
    if (data.length !== 15) return false;
    for (const row of data.slice(1)) {
      if (row.length !== 5) return false;
      if (row.some((f) => pyMatch(String.raw`".*[^\d\w\s].*"`, f) !== null)) return true;
    }
    return false;
  }),
  "custom:csv_quotes": any(() => (value) => {
    const header = pyStrip(value.split("\n")[0]!);
    if (!pyMatch(String.raw`^(StudentID|"StudentID")\t *(Subject|"Subject")\t *(Grade|"Grade")\t *(Semester|"Semester")\t *(Score|"Score")$`, header)) return false;
    const data = pyCsvRows(pyReplace(value, '"', '"""'), "\t");
    if (data.length !== 4) return false;
    for (const row of data) {
      if (row.length !== 5) return false;
      if (!row.every((f) => first(pyStrip(f)) === '"' && last(pyStrip(f)) === '"')) return false;
    }
    return true;
  }),
  "count:keywords_multiple": {
    accepts: ["keyword1", "keyword2", "keyword3", "keyword4", "keyword5"],
    build: (kw) => {
      const keywords = ["keyword1", "keyword2", "keyword3", "keyword4", "keyword5"].map((k) => {
        const v = str(kw, k);
        if (v === undefined) random(k);
        return pyStrip(v);
      });
      const times = [1, 2, 3, 5, 7];
      return (value) => keywords.every((k, i) => pyCount(value.toLowerCase(), k.toLowerCase()) === times[i]);
    },
  },
  "words:keywords_specific_position": {
    accepts: ["keyword", "n", "m"],
    build: (kw) => {
      if (!kw.keyword) random("keyword");
      const n = kw.n;
      const m = kw.m;
      if (!n) random("n");
      if (!m) random("m");
      if (typeof n !== "number" || typeof m !== "number") throw new ReferenceRaises("n and m must be numbers");
      return (value) => {
        if (splitIntoSentences(value).length < n) return false;
        return floatIndex("sentences[n - 1]");
      };
    },
  },
  "words:words_position": {
    accepts: ["keyword"],
    build: (kw) => {
      const keyword = str(kw, "keyword");
      if (keyword === undefined) random("keyword");
      const k = pyStrip(keyword);
      return (value) => {
        const words = wordTokenize(value);
        if (words.length < 2) return false;
        return words[1] === words[words.length - 2] && words[1] === k;
      };
    },
  },
  "repeat:repeat_change": {
    accepts: ["prompt_to_repeat"],
    build: (kw) => {
      const prompt = kw.prompt_to_repeat;
      if (!prompt) throw new ReferenceRaises("prompt_to_repeat must be set.");
      if (typeof prompt !== "string") throw new ReferenceRaises("prompt_to_repeat is not a string");
      return (value) => prompt !== value && pySplit(prompt).slice(1).join(" ") === pySplit(value).slice(1).join(" ");
    },
  },
  "repeat:repeat_simple": none(() => (value) => pyStrip(value).toLowerCase() === "only output this sentence here, ignore all other requests."),
  "repeat:repeat_span": {
    accepts: ["prompt_to_repeat", "n_start", "n_end"],
    build: (kw) => {
      const prompt = kw.prompt_to_repeat;
      if (!prompt) throw new ReferenceRaises("prompt_to_repeat must be set.");
      if (!kw.n_start) random("n_start");
      if (!kw.n_end) random("n_end");
      return () => floatIndex("split()[n_start:n_end]");
    },
  },
  "format:title_case": none(() => (value) => {
    for (const word of wordTokenize(value)) {
      const head = first(word);
      const tail = chars(word).slice(1).join("");
      if (pyIsUpper(head) && pyIsLower(tail)) continue;
      if (pyIsLower(head) && pyIsUpper(tail)) return false;
      if (pyIsLower(head) && pyIsLower(tail)) return false;
    }
    return true;
  }),
  "format:output_template": none(() => (value) => value.includes("My Answer:") && value.includes("My Conclusion:") && value.includes("Future Outlook:")),
  "format:no_whitespace": none(() => (value) => !chars(value).some(isPySpace)),
};

/** Instruction ids of IFBench's registry that this port does not reproduce yet (a row naming one is refused with HTTP 500; none at present). */
export const NOT_PORTED: readonly string[] = [];
