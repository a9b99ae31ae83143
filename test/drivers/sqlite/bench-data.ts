/**
 * Deterministic blog data for the SQLite bench (the workload of shared/research/raw-baselines.md, scaled
 * down in code): Zipf-distributed words from a 20k vocabulary, bodies from a pool of paragraphs, 1–3 of
 * 40 Zipf-weighted labels, ~94% LIVE / 6% drafts, publish times increasing with generation order.
 */
export interface BenchPost {
  title: string;
  content: string;
  labels: string[];
  published: string;
  draft: boolean;
}

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cumulative Zipf weights for `n` ranks, sampled by binary search. */
function zipf(n: number, s = 1): (r: number) => number {
  const cum = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cum[i] = total += 1 / (i + 1) ** s;
  return (r) => {
    const x = r * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cum[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'ti',
  'vo',
  'ze',
  'pa',
  'do',
  'fi',
  'gu',
  'he',
  'ja',
  'bo',
  'ce',
  'xu',
  'wy',
  'qi',
];

export interface Generator {
  vocabulary: string[];
  labels: string[];
  post(i: number): BenchPost;
  /** A two-word query of mid-frequency words (matches roughly 1–2% of posts with full bodies). */
  query: string;
}

/** `paragraphs` per post: 3 gives ~2 KB bodies; fewer for the 1M run. */
export function generator(seed = 1, paragraphsPerPost = 3): Generator {
  const r = rng(seed);
  const vocabulary: string[] = [];
  const seen = new Set<string>();
  while (vocabulary.length < 20_000) {
    const n = 2 + Math.floor(r() * 3);
    let w = '';
    for (let k = 0; k < n; k++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      vocabulary.push(w);
    }
  }
  const word = zipf(vocabulary.length, 1.05);
  const sentence = () => {
    const n = 6 + Math.floor(r() * 10);
    const ws = Array.from({ length: n }, () => vocabulary[word(r())]!);
    ws[0] = ws[0]![0]!.toUpperCase() + ws[0]!.slice(1);
    return `${ws.join(' ')}.`;
  };
  const pool = Array.from({ length: 4000 }, () => `<p>${Array.from({ length: 8 }, sentence).join(' ')}</p>`);
  const labels = Array.from({ length: 40 }, (_, i) => `label-${String(i).padStart(2, '0')}`);
  const label = zipf(labels.length, 1.1);
  const start = Date.parse('2015-01-01T00:00:00Z');
  return {
    vocabulary,
    labels,
    query: `${vocabulary[150]} ${vocabulary[260]}`,
    post(i) {
      const pr = rng(seed * 1_000_003 + i);
      const title = Array.from({ length: 3 + Math.floor(pr() * 4) }, () => vocabulary[word(pr())]).join(' ');
      const content = Array.from({ length: paragraphsPerPost }, () => pool[Math.floor(pr() * pool.length)]).join('\n');
      const ls = new Set<string>();
      const n = 1 + Math.floor(pr() * 3);
      while (ls.size < n) ls.add(labels[label(pr())]!);
      // One post a minute, so every post has its own time and a 1M blog spans about two years.
      return {
        title,
        content,
        labels: [...ls],
        published: new Date(start + i * 60_000).toISOString(),
        draft: pr() < 0.06,
      };
    },
  };
}
