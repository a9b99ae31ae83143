/**
 * Errors the command reports as one line (`blogcore: …`): CliError with exit code 1; UsageError with exit code 2
 * and a pointer to the command's own help (`see \`blogcore <command> --help\``).
 */
export class CliError extends Error {
  override name = 'CliError';
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** ` (did you mean X?)` when one candidate is close to what was typed (a typo, a swap, a prefix), else ''. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const word = typed.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.min(2, Math.floor(word.replace(/^-+/, '').length / 3)));
  for (const candidate of candidates) {
    const d = candidate.startsWith(word) && word.replace(/^-+/, '').length >= 2 ? 0 : distance(word, candidate);
    if (d <= bestDistance && (best === undefined || d < bestDistance)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best === undefined ? '' : ` (did you mean ${best}?)`;
}

/** Edits between two words: insertions, deletions, substitutions and swaps of neighbours (optimal string alignment). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
