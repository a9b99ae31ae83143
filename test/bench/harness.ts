/** Shared timing and printing for `npm run bench`. Every bench times blogcore and its raw baseline in one run. */
export interface Timing {
  /** Mean latency in microseconds. */
  mean: number;
  p50: number;
  p99: number;
  ops: number;
}

export interface BenchContext {
  /** `--quick`: smaller sizes and shorter budgets, for a smoke run. */
  quick: boolean;
  /** Milliseconds of measuring per op. */
  budgetMs: number;
  args: Record<string, string>;
}

/** Calls `fn` repeatedly for `budgetMs` (after a short warm-up) and reports latency in microseconds. */
export async function time(fn: (i: number) => unknown, budgetMs: number): Promise<Timing> {
  for (let i = 0; i < 20; i++) await fn(i);
  const samples: number[] = [];
  const end = performance.now() + budgetMs;
  let i = 0;
  while (performance.now() < end || samples.length < 20) {
    const t0 = performance.now();
    await fn(i++);
    samples.push((performance.now() - t0) * 1000);
  }
  return summary(samples);
}

/** Mean, median and 99th percentile of latency samples (µs). */
export function summary(samples: number[]): Timing {
  samples.sort((x, y) => x - y);
  const mean = samples.reduce((sum, x) => sum + x, 0) / samples.length;
  return {
    mean,
    p50: samples[Math.floor(samples.length / 2)]!,
    p99: samples[Math.floor(samples.length * 0.99)]!,
    ops: samples.length,
  };
}

/**
 * Times blogcore and raw call by call in alternation (after a warm-up), so both see the same machine:
 * on a shared box, load from other processes then inflates both sides alike instead of skewing the ratio.
 */
export async function timePair(
  ours: (i: number) => unknown,
  raw: (i: number) => unknown,
  budgetMs: number,
  /** Each call in a turn of the event loop of its own (as a server's requests come), the wait not timed. */
  ownTurn = false,
): Promise<[Timing, Timing]> {
  const turn = () => (ownTurn ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined);
  for (let i = 0; i < 20; i++) {
    await ours(i);
    await raw(i);
  }
  const a: number[] = [];
  const b: number[] = [];
  const end = performance.now() + 2 * budgetMs;
  for (let i = 20; performance.now() < end || a.length < 20; i++) {
    await turn();
    let t = performance.now();
    await ours(i);
    a.push((performance.now() - t) * 1000);
    await turn();
    t = performance.now();
    await raw(i);
    b.push((performance.now() - t) * 1000);
  }
  return [summary(a), summary(b)];
}

export interface Row {
  op: string;
  size: number | string;
  ours: Timing;
  raw: Timing;
  /** The ratio we aim for (ours / raw at most this), printed beside the measured one. */
  target?: number;
  /** A target of another kind (e.g. against another row), as printed in the target column with its ✓/✗. */
  judged?: { target: string; met: boolean };
}

const fmt = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);

/**
 * Prints a table of blogcore vs raw: mean and p50 latencies, the ratio of means (judged against the target)
 * and the ratio of p50s beside it (steadier on a shared machine, whose stalls land in the means).
 */
export function printTable(title: string, rows: Row[]): void {
  const lines = [
    `\n## ${title}`,
    '',
    '| op | size | blogcore mean (p50) | raw mean (p50) | ratio of means | ratio of p50s | target (docs/design.md §14) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const ratio = r.ours.mean / r.raw.mean;
    const ok = r.judged
      ? `${r.judged.target} ${r.judged.met ? '✓' : '✗'}`
      : r.target === undefined
        ? ''
        : ratio <= r.target
          ? `≤ ${r.target}× ✓`
          : `≤ ${r.target}× ✗`;
    lines.push(
      `| ${r.op} | ${r.size} | ${fmt(r.ours.mean)} (${fmt(r.ours.p50)}) | ${fmt(r.raw.mean)} (${fmt(r.raw.p50)}) | ${ratio.toFixed(2)}× | ${(r.ours.p50 / r.raw.p50).toFixed(2)}× | ${ok} |`,
    );
  }
  console.log(lines.join('\n'));
}

/**
 * Prints how a cost grows with size: the mean at each size relative to the smallest, judged against `flat`
 * (docs/design.md §14's flat-cost target) for the ops it names.
 */
export function printGrowth(
  title: string,
  series: Record<string, Array<[number, Timing]>>,
  flat?: { ops: readonly string[]; target: number },
): void {
  const lines = [`\n### ${title}`, '', '| op | mean by size | growth (p50 growth) | target |', '|---|---|---|---|'];
  for (const [op, points] of Object.entries(series)) {
    if (points.length === 0) continue;
    const first = points[0]![1];
    const last = points[points.length - 1]![1];
    const growth = last.mean / first.mean;
    const judged = flat?.ops.includes(op) && points.length > 1;
    const ok = judged ? `≤ ${flat!.target}× ${growth <= flat!.target ? '✓' : '✗'}` : '';
    lines.push(
      `| ${op} | ${points.map(([n, t]) => `${n}: ${fmt(t.mean)}`).join(', ')} | ${growth.toFixed(2)}× (${(last.p50 / first.p50).toFixed(2)}×) | ${ok} |`,
    );
  }
  console.log(lines.join('\n'));
}

/** A verdict line: what was measured against a target of docs/design.md §14. */
export function verdict(what: string, measured: string, target: string, met: boolean): void {
  console.log(`- ${what}: ${measured} — target ${target}: ${met ? '✓' : '✗'}`);
}

export { fmt as formatMicros };
