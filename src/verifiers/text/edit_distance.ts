// The `editdistance` Python package's `eval(a, b)` (roy-ht/editdistance 0.8.1): Levenshtein distance
// with unit costs (insert, delete, substitute; no transpositions) between two sequences whose
// elements are compared for equality (the package compares their Python hashes). Strings are
// sequences of code points, as Python's str. Proven against fixtures from the package built from
// source at v0.8.1 (testdata/generate_edit_distance.py).
//
// Own implementation rather than `fastest-levenshtein`: that package works on UTF-16 strings only,
// and the word error rate needs distances between word lists.

function elements<T>(seq: string | readonly T[]): readonly (T | number)[] {
  if (typeof seq !== "string") return seq;
  const out: number[] = [];
  for (const ch of seq) out.push(ch.codePointAt(0)!);
  return out;
}

/** Levenshtein distance between two strings (by code point) or two arrays (by `===`). */
export function editDistance<T>(a: string | readonly T[], b: string | readonly T[]): number {
  let x = elements(a);
  let y = elements(b);
  if (x.length < y.length) [x, y] = [y, x];
  // One row over the shorter sequence.
  const row = new Int32Array(y.length + 1);
  for (let j = 0; j <= y.length; j++) row[j] = j;
  for (let i = 1; i <= x.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    const xi = x[i - 1];
    for (let j = 1; j <= y.length; j++) {
      const above = row[j]!;
      const cost = xi === y[j - 1] ? 0 : 1;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[y.length]!;
}
