// Parameters for the English Punkt model. NeMo Gym loads NLTK's pre-trained `punkt_tab/english`
// (abbreviations, collocations, sentence starters and orthographic contexts learnt from a news
// corpus). That data is not available from a package registry here, so this is a hand-built
// stand-in; the algorithm that uses it (punkt.ts) is a line-by-line port.
//
// Known differences from the trained model (documented; each affects only the decision at a `.`
// that follows an abbreviation, an initial, an ellipsis or a number):
//   - ABBREVIATIONS is a curated list of common English abbreviations (titles, company suffixes,
//     months, US states, Latin, units), leaving out abbreviations that are also everyday words
//     ("no", "ill", "mass", "sun", "min"), which a model's answer often ends a sentence with; the
//     trained list has ~150 entries learnt from news text and differs on rare ones (a word missing
//     here ends a sentence where NLTK would not, and vice versa).
//   - ORTHO_LOWER_WORDS gives frequent lower-case English words the "seen lower-case inside a
//     sentence, capitalised only at a sentence start" context; every other word has no context
//     (NLTK knows tens of thousands). So after an abbreviation or ellipsis a capitalised common word
//     starts a sentence (as in NLTK), a capitalised rare word does not split, and after an initial
//     ("J. Smith") a capitalised rare word does not split either.
//   - No collocations and no sentence starters.
export const ABBREVIATIONS: ReadonlySet<string> = new Set([
  // Titles and honorifics
  "mr", "mrs", "ms", "messrs", "mmes", "dr", "prof", "rev", "sr", "jr", "st", "gov", "sen",
  "lt", "sgt", "capt", "cmdr", "adm", "maj", "cpl", "pvt", "supt", "insp", "fr",
  // Companies and organisations
  "inc", "corp", "co", "ltd", "bros", "assn", "dept", "univ", "cie", "plc", "n.v", "s.a", "a.g", "l.p", "llc",
  // Months and days
  "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
  "tue", "tues", "thu", "thur", "thurs",
  // US states and places
  "ala", "ariz", "calif", "colo", "conn", "fla", "ga", "kan", "kans", "ky",
  "md", "mich", "minn", "mont", "neb", "nev", "okla", "tenn", "tex",
  "vt", "wis", "wyo", "n.h", "n.j", "n.m", "n.y", "n.c", "n.d", "s.c", "s.d", "r.i", "w.va", "d.c",
  "u.s", "u.k", "u.n", "u.s.a", "e.u", "mt", "ft", "ave", "blvd", "rd",
  // Latin and scholarly
  "e.g", "i.e", "etc", "vs", "cf", "al", "approx", "viz", "ibid", "vol", "vols", "pp",
  "eq", "eqs", "p.m", "a.m", "ph.d", "m.d", "b.a", "m.a", "m.b.a", "b.s",
  // Units
  "oz", "lb", "lbs", "hr", "hrs", "yr", "yrs", "sq",
]);

/** Frequent words seen lower-case inside sentences and capitalised only when they start one. */
export const ORTHO_LOWER_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also although always am among an and another any are as at " +
    "back be because been before being below between both but by can could did do does doing done down " +
    "during each either even ever every few first for from further had has have having he her here hers " +
    "herself him himself his how however if in instead into is it its itself just last later least less " +
    "let like many may me meanwhile more moreover most much must my myself neither never nevertheless " +
    "next nor not now of off often on once one only or other others otherwise our ours ourselves out over " +
    "own perhaps rather same second several she should since so some still such than that the their " +
    "theirs them themselves then there therefore these they third this those though through thus to too " +
    "under until up upon us very was we well were what whatever when whenever where whereas whether " +
    "which while who whom whose why will with within without would yet you your yours yourself " +
    "yourselves finally furthermore additionally consequently similarly instead indeed overall today " +
    "yesterday tomorrow recently currently generally usually sometimes step let's it's i'm we're they're " +
    "you're don't doesn't didn't can't won't isn't aren't wasn't weren't there's here's that's what's " +
    "make use consider note remember keep add take start begin check open run install see try write " +
    "read find go get set give put ask answer example examples people time year years day days way " +
    "thing things part parts point points number however"
  ).split(" "),
);
