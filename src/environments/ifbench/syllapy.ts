// syllapy's `count(word)` (version 0.7.2, github mholtzscher/syllapy 9b95c13): a word list first, then
// a hyphenated compound as the sum of its parts, then a vowel-group heuristic. IFBench's
// odd/even-syllable checker decides with it.
import { pyStrip } from "../../verifiers/text/pystr.js";
import { SYLLAPY_CSV } from "./syllapy_data.js";

const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
const VOWELS = "aeiouy";

let words: Map<string, number> | undefined;
function wordList(): Map<string, number> {
  if (!words) {
    words = new Map();
    for (const line of SYLLAPY_CSV.split(/\r?\n/)) {
      if (line === "") continue;
      const comma = line.indexOf(",");
      words.set(line.slice(0, comma), Number.parseInt(line.slice(comma + 1), 10));
    }
  }
  return words;
}

function heuristic(word: string): number {
  const c = Array.from(word);
  let n = VOWELS.includes(c[0]!) ? 1 : 0;
  for (let i = 1; i < c.length; i++) if (VOWELS.includes(c[i]!) && !VOWELS.includes(c[i - 1]!)) n += 1;
  if (word.endsWith("e")) n -= 1;
  if (word.endsWith("le") && c.length > 2 && !VOWELS.includes(c[c.length - 3]!)) n += 1;
  return n === 0 ? 1 : n;
}

export function syllapyCount(raw: string): number {
  const word = pyStrip(pyStrip(raw).toLowerCase(), PUNCTUATION);
  if (!word) return 0;
  if (/\p{Nd}/u.test(word)) return 0;
  const known = wordList().get(word);
  if (known !== undefined) return known;
  const compound = /^([^-]+)-([\s\S]+)/u.exec(word);
  if (compound) {
    const a = syllapyCount(compound[1]!);
    const b = syllapyCount(compound[2]!);
    return a === 0 || b === 0 ? 0 : a + b;
  }
  return heuristic(word);
}
