// NLTK's Punkt sentence tokenizer (`nltk.tokenize.punkt.PunktSentenceTokenizer.tokenize`, NLTK 3.8/3.9,
// after the ReDoS fix), ported line by line so that `nltk.sent_tokenize(text)` — which IFEval's
// `count_sentences` and `nltk.word_tokenize` use — gives the same sentences. Only the tokenizer is
// ported (no trainer); the English parameters are in punkt_english.ts, whose differences from
// NLTK's trained model are documented there. Python regex semantics come from pyregex.ts.
import { ABBREVIATIONS, ORTHO_LOWER_WORDS } from "./punkt_english.js";
import { pyFinditer, pyMatch } from "./pyregex.js";
import { pyIsLower, pyIsUpper, pyRstrip, pyStrip } from "./pystr.js";

const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC + ORTHO_MID_UC + ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC + ORTHO_MID_LC + ORTHO_UNK_LC;

export interface PunktParameters {
  abbrevTypes: ReadonlySet<string>;
  /** Pairs `"<type>\u0000<next type>"`. */
  collocations: ReadonlySet<string>;
  sentStarters: ReadonlySet<string>;
  orthoContext(type: string): number;
}

export const ENGLISH_PARAMETERS: PunktParameters = {
  abbrevTypes: ABBREVIATIONS,
  collocations: new Set(),
  sentStarters: new Set(),
  orthoContext: (type) => (ORTHO_LOWER_WORDS.has(type) ? ORTHO_BEG_UC | ORTHO_MID_LC : 0),
};

// PunktLanguageVars (English defaults), as Python patterns.
const NON_WORD_CHARS = String.raw`(?:[)\";}\]\*:@\'\({\[!?])`;
const MULTI_CHAR_PUNCT = String.raw`(?:\-{2,}|\.{2,}|(?:\.\s){2,}\.)`;
const WORD_START = String.raw`[^\(\"\`{\[:;&\#\*@\)}\]\-,]`;
const WORD_TOKENIZE = String.raw`(${MULTI_CHAR_PUNCT}|(?=${WORD_START})\S+?(?=\s|$|${NON_WORD_CHARS}|${MULTI_CHAR_PUNCT}|,(?=$|\s|${NON_WORD_CHARS}|${MULTI_CHAR_PUNCT}))|\S)`;
const PERIOD_CONTEXT = String.raw`[\.\?!](?=(?P<after_tok>${NON_WORD_CHARS}|\s+(?P<next_tok>\S+)))`;
const BOUNDARY_REALIGNMENT = String.raw`["\')\]}]+?(?:\s+|(?=--)|$)`;
const PUNCTUATION = new Set([";", ":", ",", ".", "!", "?"]);
const SENT_END_CHARS = new Set([".", "?", "!"]);

class PunktToken {
  readonly type: string;
  readonly periodFinal: boolean;
  sentbreak = false;
  abbr = false;
  ellipsis = false;

  constructor(
    readonly tok: string,
    readonly parastart = false,
    readonly linestart = false,
  ) {
    this.type = tok.toLowerCase().replace(/^-?[.,]?\p{Nd}[\p{Nd},.-]*\.?$/u, "##number##");
    this.periodFinal = tok.endsWith(".");
  }

  get typeNoPeriod(): string {
    return this.type.length > 1 && this.type.endsWith(".") ? this.type.slice(0, -1) : this.type;
  }

  get typeNoSentperiod(): string {
    return this.sentbreak ? this.typeNoPeriod : this.type;
  }

  private get first(): string {
    return String.fromCodePoint(this.tok.codePointAt(0)!);
  }

  get firstUpper(): boolean {
    return pyIsUpper(this.first);
  }

  get firstLower(): boolean {
    return pyIsLower(this.first);
  }

  get isEllipsis(): boolean {
    return /^\.\.+$/.test(this.tok);
  }

  get isInitial(): boolean {
    // `[^\W\d]\.$` from the start: one letter (or `_`) and a period.
    return /^[\p{L}\p{N}_]\.$/u.test(this.tok) && !/^\p{Nd}/u.test(this.tok);
  }
}

function wordTokenize(line: string): string[] {
  return pyFinditer(WORD_TOKENIZE, line).map((m) => m[1] ?? m[0]);
}

function* tokenizeWords(text: string): Generator<PunktToken> {
  let parastart = false;
  for (const line of text.split("\n")) {
    if (pyStrip(line) !== "") {
      const toks = wordTokenize(line);
      if (toks.length === 0) continue;
      yield new PunktToken(toks[0]!, parastart, true);
      parastart = false;
      for (const tok of toks.slice(1)) yield new PunktToken(tok);
    } else {
      parastart = true;
    }
  }
}

export class PunktSentenceTokenizer {
  constructor(private readonly params: PunktParameters = ENGLISH_PARAMETERS) {}

  /** `tokenize(text)`: the sentences, as substrings of `text`. */
  tokenize(text: string): string[] {
    return this.spanTokenize(text).map(([s, e]) => text.slice(s, e));
  }

  /** `(start, end)` offsets (UTF-16) of each sentence, boundaries realigned as NLTK does. */
  spanTokenize(text: string): Array<[number, number]> {
    return this.realignBoundaries(text, this.slicesFromText(text));
  }

  private firstPass(tok: PunktToken): void {
    const t = tok.tok;
    if (SENT_END_CHARS.has(t)) tok.sentbreak = true;
    else if (tok.isEllipsis) tok.ellipsis = true;
    else if (tok.periodFinal && !t.endsWith("..")) {
      const stem = t.slice(0, -1).toLowerCase();
      if (this.params.abbrevTypes.has(stem) || this.params.abbrevTypes.has(stem.split("-").at(-1)!)) tok.abbr = true;
      else tok.sentbreak = true;
    }
  }

  private orthoHeuristic(tok: PunktToken): boolean | "unknown" {
    if (PUNCTUATION.has(tok.tok)) return false;
    const ortho = this.params.orthoContext(tok.typeNoSentperiod);
    if (tok.firstUpper && ortho & ORTHO_LC && !(ortho & ORTHO_MID_UC)) return true;
    if (tok.firstLower && (ortho & ORTHO_UC || !(ortho & ORTHO_BEG_LC))) return false;
    return "unknown";
  }

  private secondPass(tok1: PunktToken, tok2: PunktToken | undefined): void {
    if (!tok2 || !tok1.periodFinal) return;
    const typ = tok1.typeNoPeriod;
    const nextTyp = tok2.typeNoSentperiod;
    const initial = tok1.isInitial;
    if (this.params.collocations.has(`${typ}\u0000${nextTyp}`)) {
      tok1.sentbreak = false;
      tok1.abbr = true;
      return;
    }
    if ((tok1.abbr || tok1.ellipsis) && !initial) {
      const starter = this.orthoHeuristic(tok2);
      if (starter === true) {
        tok1.sentbreak = true;
        return;
      }
      if (tok2.firstUpper && this.params.sentStarters.has(nextTyp)) {
        tok1.sentbreak = true;
        return;
      }
    }
    if (initial || typ === "##number##") {
      const starter = this.orthoHeuristic(tok2);
      if (starter === false) {
        tok1.sentbreak = false;
        tok1.abbr = true;
        return;
      }
      if (starter === "unknown" && initial && tok2.firstUpper && !(this.params.orthoContext(nextTyp) & ORTHO_LC)) {
        tok1.sentbreak = false;
        tok1.abbr = true;
      }
    }
  }

  /** `text_contains_sentbreak`: a break on any token but the last. */
  private textContainsSentbreak(text: string): boolean {
    const tokens = Array.from(tokenizeWords(text));
    for (const tok of tokens) this.firstPass(tok);
    for (let i = 0; i < tokens.length; i++) this.secondPass(tokens[i]!, tokens[i + 1]);
    return tokens.slice(0, -1).some((tok) => tok.sentbreak);
  }

  private *matchPotentialEndContexts(text: string): Generator<{ end: number; nextTokStart: number | undefined; context: string }> {
    let prevStart = 0;
    let prevStop = 0;
    let previous: RegExpExecArray | undefined;
    const contextOf = (m: RegExpExecArray, start: number, stop: number) => ({
      end: m.index + m[0].length,
      nextTokStart: m.groups?.next_tok ? m.index + 1 + (m.groups.after_tok ?? "").indexOf(m.groups.next_tok) : undefined,
      context: text.slice(start, stop) + m[0] + (m.groups?.after_tok ?? ""),
    });
    for (const match of pyFinditer(PERIOD_CONTEXT, text)) {
      const before = text.slice(prevStop, match.index);
      let lastSpace = 0;
      // Python's `string.whitespace`: ASCII only.
      for (let i = before.length - 1; i >= 0; i--) {
        if (" \t\n\r\v\f".includes(before[i]!)) {
          lastSpace = i;
          break;
        }
      }
      const wordStart = lastSpace ? lastSpace + prevStop + 1 : prevStart;
      if (previous && prevStop <= wordStart) yield contextOf(previous, prevStart, prevStop);
      previous = match;
      prevStart = wordStart;
      prevStop = match.index;
    }
    if (previous) yield contextOf(previous, prevStart, prevStop);
  }

  private slicesFromText(text: string): Array<[number, number]> {
    const slices: Array<[number, number]> = [];
    let lastBreak = 0;
    for (const { end, nextTokStart, context } of this.matchPotentialEndContexts(text)) {
      if (this.textContainsSentbreak(context)) {
        slices.push([lastBreak, end]);
        lastBreak = nextTokStart ?? end;
      }
    }
    slices.push([lastBreak, pyRstrip(text).length]);
    return slices;
  }

  private realignBoundaries(text: string, slices: Array<[number, number]>): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let realign = 0;
    for (let i = 0; i < slices.length; i++) {
      const s1: [number, number] = [slices[i]![0] + realign, slices[i]![1]];
      const s2 = slices[i + 1];
      const nonEmpty = s1[1] > s1[0];
      if (!s2) {
        if (nonEmpty) out.push(s1);
        continue;
      }
      const m = pyMatch(BOUNDARY_REALIGNMENT, text.slice(s2[0], s2[1]), { multiline: true });
      if (m) {
        out.push([s1[0], s2[0] + pyRstrip(m[0]).length]);
        realign = m[0].length;
      } else {
        realign = 0;
        if (nonEmpty) out.push(s1);
      }
    }
    return out;
  }
}

let english: PunktSentenceTokenizer | undefined;

/** `nltk.sent_tokenize(text)` (English). */
export function sentTokenize(text: string): string[] {
  english ??= new PunktSentenceTokenizer();
  return english.tokenize(text);
}
