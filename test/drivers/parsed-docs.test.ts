/**
 * The documents a driver keeps parsed (drivers/shared/parsed-docs.ts): a row read again and again is kept, and a
 * row is counted by its whole id, so two posts of one page are not mistaken for one another.
 */
import { describe, expect, it } from 'vitest';
import { ParsedDocs } from '../../drivers/shared/parsed-docs.js';

describe('documents kept parsed', () => {
  it('keeps each of two ids read in turn that differ only inside their random part', () => {
    const docs = new ParsedDocs<string>();
    // Two ULIDs made in one millisecond: the same time, length, middle and last character.
    const ids = ['01JDQ4Z8Y0ABCDEFGHJKMNPQRS', '01JDQ4Z8Y0ABCDEFXHJKMNPQRS'];
    for (let n = 0; n < 4; n++) for (const id of ids) docs.parse(id, JSON.stringify({ id }), `${id} 1`);
    for (const id of ids) {
      expect(docs.stampOf(id)).toBe(`${id} 1`);
      expect(docs.keptAs(id, `${id} 1`)).toEqual({ id });
    }
  });

  it('parses a row written since, and keeps no document read fewer than four times', () => {
    const docs = new ParsedDocs<string>();
    for (let n = 0; n < 3; n++) docs.parse('a', '{"v":1}', 'a 1');
    expect(docs.stampOf('a')).toBeUndefined();
    docs.parse('a', '{"v":1}', 'a 1');
    expect(docs.keptAs('a', 'a 1')).toEqual({ v: 1 });
    expect(docs.parse('a', '{"v":2}', 'a 2')).toEqual({ v: 2 });
    expect(docs.keptAs('a', 'a 1')).toBeUndefined();
  });
});
