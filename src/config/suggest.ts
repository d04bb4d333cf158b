// "Did you mean …?" for misspelt field names and enum values: the closest candidate by edit
// distance (with transpositions), compared case-insensitively, if it is close enough.

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) d[0]![j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate closest to `word`, or undefined when none is plausibly what was meant. */
export function suggest(word: string, candidates: Iterable<string>, options: { prefixes?: boolean } = {}): string | undefined {
  const prefixes = options.prefixes ?? true;
  const w = word.toLowerCase();
  // Roughly one typo per three characters, at most four: "nme" → "name", not "id" → "key".
  const budget = Math.min(4, Math.max(1, Math.floor(w.length / 3)));
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    if (c === word) continue;
    const cl = c.toLowerCase();
    let score = editDistance(w, cl);
    // A prefix of a long name ("feature_flags_access" for "feature_flags_access_level") is a likely meaning too.
    if (prefixes && score > budget && w.length >= 4 && cl.startsWith(w)) score = budget;
    if (score <= budget && score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}
