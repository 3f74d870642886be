/** "Did you mean": the known names nearest to one that matched nothing (rule ids, fault ids, profile keys). */

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The known names nearest to `word` (at most `count`, best first), only those close enough to be a typo of it. */
export function nearest(word: string, known: readonly string[], count = 3): string[] {
  const limit = Math.max(2, Math.floor(word.length / 3));
  return known
    .map((k) => ({ k, d: editDistance(word.toLowerCase(), k.toLowerCase()) }))
    .filter(({ d }) => d <= limit)
    .sort((a, b) => a.d - b.d || a.k.length - b.k.length)
    .slice(0, count)
    .map(({ k }) => k);
}

/** ` (did you mean "a" or "b"?)`, or nothing when no known name is close. */
export function didYouMean(word: string, known: readonly string[]): string {
  const near = nearest(word, known);
  if (near.length === 0) return '';
  return ` (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)`;
}
