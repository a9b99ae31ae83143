/**
 * The IndexedDB driver's search postings (drivers/idb/postings.ts) against a brute-force answer: segments of
 * every size (inline, chunked docs, buckets, big terms), ordered pages from keyset positions in both
 * directions over several prefixes, merges that drop replaced versions.
 */
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import {
  buildSegment,
  mergeSegments,
  orderedMatches,
  Segment,
  allMatches,
  type Candidate,
  type PostingDoc,
} from '../../../drivers/idb/postings.js';
import { compareKeys, suffixInBounds, type Key, type KeyBound } from '../../../src/store/driver.js';
import { rng } from '../sqlite/bench-data.js';

function store() {
  const records = new Map<string, unknown>();
  return {
    records,
    reader: { get: async (key: IDBValidKey) => structuredClone(records.get(JSON.stringify(key))) },
    add(id: number, docs: PostingDoc[], merged?: Parameters<typeof buildSegment>[2]) {
      const { head, body } = buildSegment(id, docs, merged);
      for (const [k, v] of body) records.set(JSON.stringify(k), v);
      return head;
    },
  };
}

const pad = (n: number) => String(n).padStart(6, '0');
function docs(n: number, seed: number, v = 1): PostingDoc[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const terms = ['all'];
    if (i % 3 === 0) terms.push('third');
    if (r() < 0.05) terms.push('rare');
    if (r() < 0.5) terms.push('half');
    const status = r() < 0.2 ? 'DRAFT' : 'LIVE';
    return {
      id: `d${seed}-${pad(i)}`,
      v,
      s: 'b',
      key: ['b', status, `2026-${pad(Math.floor(r() * 1e6))}`, `d${seed}-${pad(i)}`],
      terms,
    };
  });
}

function brute(
  all: PostingDoc[],
  terms: string[],
  prefixes: Key[],
  bounds: { lower?: KeyBound; upper?: KeyBound },
  up: boolean,
  limit: number,
) {
  const w = prefixes[0]!.length;
  return all
    .filter((d) => terms.every((t) => d.terms.includes(t)))
    .filter(
      (d) => prefixes.some((p) => compareKeys(d.key.slice(0, w), p) === 0) && suffixInBounds(d.key.slice(w), bounds),
    )
    .sort((a, b) => (up ? 1 : -1) * compareKeys(a.key.slice(w), b.key.slice(w)))
    .slice(0, limit)
    .map((d) => d.id);
}

describe('search postings', () => {
  it('pages like a brute-force search, in every segment shape', async () => {
    const s = store();
    // inline (5), one body record (20), chunked with buckets (700), with big terms (5000)
    const sets = [docs(5, 1), docs(20, 5), docs(700, 2), docs(5000, 3)];
    const segs = sets.map((d, i) => new Segment(s.add(i + 1, d), s.reader));
    const all = sets.flat();
    const live = new Map(all.map((d) => [d.id, d.v]));
    const verify = async (batch: readonly Candidate[]) => batch.map((c) => live.get(c.id) === c.v);
    const prefixes: Key[] = [
      ['b', 'LIVE'],
      ['b', 'DRAFT'],
    ];
    for (const terms of [['all'], ['third', 'half'], ['rare'], ['rare', 'third'], ['none']]) {
      for (const up of [true, false]) {
        for (const bounds of [
          {},
          { upper: { key: ['2026-500000'] } },
          { lower: { key: ['2026-250000'], open: true } },
        ]) {
          const got = await orderedMatches(segs, terms, prefixes, bounds, up, 20, verify);
          expect(got.map((c) => c.id)).toEqual(brute(all, terms, prefixes, bounds, up, 20));
        }
      }
      // one prefix
      const one = await orderedMatches(segs, terms, [['b', 'DRAFT']], {}, false, 7, verify);
      expect(one.map((c) => c.id)).toEqual(brute(all, terms, [['b', 'DRAFT']], {}, false, 7));
      const every = (await Promise.all(segs.map((seg) => allMatches(seg, terms)))).flat();
      expect(every.map((c) => c.id).sort()).toEqual(
        all
          .filter((d) => terms.every((t) => d.terms.includes(t)))
          .map((d) => d.id)
          .sort(),
      );
    }
  });

  it('keeps only the current version of a document written again, and a merge drops the replaced ones', async () => {
    const s = store();
    const first = docs(100, 4);
    const second = first
      .slice(0, 30)
      .map((d) => ({ ...d, v: 2, terms: ['moved'], key: [d.key[0]!, d.key[1]!, '2027-000000', d.id] }));
    const segs = [new Segment(s.add(1, first), s.reader), new Segment(s.add(2, second), s.reader)];
    const current = new Map([...first, ...second].map((d) => [d.id, d.v]));
    const verify = async (batch: readonly Candidate[]) => batch.map((c) => current.get(c.id) === c.v);
    const page = async (ss: Segment[], terms: string[]) =>
      (await orderedMatches(ss, terms, [['b', 'LIVE']], {}, false, 500, verify)).map((c) => c.id);
    const before = { all: await page(segs, ['all']), moved: await page(segs, ['moved']) };
    expect(before.all).toEqual(brute(first.slice(30), ['all'], [['b', 'LIVE']], {}, false, 500));
    expect(before.moved).toEqual(brute(second, ['moved'], [['b', 'LIVE']], {}, false, 500));
    const merged = await mergeSegments(segs, new Map(second.map((d) => [d.id, { v: 1 }])));
    expect(merged.docs).toHaveLength(100);
    const one = [new Segment(s.add(3, merged.docs, merged.lists), s.reader)];
    expect({ all: await page(one, ['all']), moved: await page(one, ['moved']) }).toEqual(before);
  });

  it('merges segments of every size into the segment their current documents would make, record by record', async () => {
    // Sizes that are inline, one record, chunked with buckets, and with big terms (`all` in every document).
    for (const sizes of [
      [3, 5],
      [20, 9],
      [300, 40, 7],
      [2500, 1800],
    ]) {
      const s = store();
      const written = sizes.map((n, i) => docs(n, 10 + i));
      // Some of the first segment's documents written again in the last one (moved, new terms), some deleted.
      const again = written[0]!
        .slice(0, 2)
        .map((d) => ({ ...d, v: 2, terms: ['moved', 'all'], key: [...d.key.slice(0, 2), '2027', d.id] }));
      written[written.length - 1]!.push(...again);
      const segs = written.map((ds, i) => new Segment(s.add(i + 1, ds), s.reader));
      const deleted = written[0]![2]!.id;
      const dead = new Map([...again.map((d) => [d.id, { v: 1 }] as const), [deleted, { v: 1 }]]);
      const merged = await mergeSegments(segs, dead);
      const expected = written
        .flat()
        .filter((d) => d.id !== deleted && !(d.v === 1 && again.some((a) => a.id === d.id)));
      const want = buildSegment(9, expected);
      const got = buildSegment(9, merged.docs, merged.lists);
      // (A big term's place among the head's keys may differ; what it holds may not.)
      expect({ ...got.head, big: new Map(Object.entries(got.head.big ?? {}).sort()) }).toEqual({
        ...want.head,
        big: new Map(Object.entries(want.head.big ?? {}).sort()),
      });
      const byKey = (body: typeof got.body) => new Map(body.map(([k, v]) => [JSON.stringify(k), v]));
      expect(byKey(got.body)).toEqual(byKey(want.body));
    }
  });

  it('keeps every record under 64 KB, where Chromium would store the value as a blob', () => {
    // Posts of ~160 distinct words from a vocabulary of 4,000 (the IndexedDB bench's shape).
    const r = rng(9);
    const post = (i: number): PostingDoc => {
      const terms = new Set<string>();
      while (terms.size < 160) terms.add(`w${Math.floor(4000 * r() ** 2)}`);
      return { id: `p${pad(i)}`, v: 1, s: 'b', key: ['b', 'LIVE', `2026-${pad(i)}`, `p${pad(i)}`], terms: [...terms] };
    };
    for (const n of [7, 31, 32, 500, 4096]) {
      const { head, body } = buildSegment(
        1,
        Array.from({ length: n }, (_, i) => post(i)),
      );
      const biggest = Math.max(serialize(head).length, ...body.map(([, v]) => serialize(v).length));
      expect(biggest, `a segment of ${n}`).toBeLessThan(64 * 1024);
    }
  });
});
