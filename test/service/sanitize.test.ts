/** Comment HTML is rebuilt from an allowlist: what readers see, exactly (the browser test parses it for real). */
import { describe, expect, it } from 'vitest';
import { HOSTILE_COMMENTS } from '../support/comment-html.js';
import { makePost, world, type Wire } from './helpers.js';
import { DRIVERS } from '../support/drivers.js';

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  async function sanitized(contents: readonly string[]): Promise<string[]> {
    const w = await world(makeDriver());
    const p = await makePost(w, 'LIVE');
    const out: string[] = [];
    for (const content of contents)
      out.push(((await w.anon.comments.insert({ blogId: w.blogId, postId: p.id, body: { content } })) as Wire).content);
    return out;
  }

  describe('comment HTML', () => {
    it('keeps allowlisted markup, text and entities; links get rel="nofollow"', async () => {
      expect(
        await sanitized([
          '<p>Hi <b>bold</b> &amp; <em>it</em></p><ul><li>1</li></ul><pre><code>x &lt; y</code></pre><br/>',
          '<A HREF="HTTPS://X.EXAMPLE/a?b=1&amp;c=2" TITLE=\'say "hi"\' target=_blank>up</A>',
          '<a href=mailto:me@x.example>mail</a>',
        ]),
      ).toEqual([
        '<p>Hi <b>bold</b> &amp; <em>it</em></p><ul><li>1</li></ul><pre><code>x &lt; y</code></pre><br>',
        '<a rel="nofollow" href="https://x.example/a?b=1&amp;c=2" title="say &quot;hi&quot;">up</a>',
        '<a rel="nofollow" href="mailto:me@x.example">mail</a>',
      ]);
    });

    it('escapes stray angle brackets, balances tags, drops other tags but keeps their text', async () => {
      expect(
        await sanitized([
          'a < b and c > d',
          '<b>open <i>nested',
          '</p>stray</b> close',
          '<div><span>inner</span></div>',
          '<<b>>',
        ]),
      ).toEqual(['a &lt; b and c &gt; d', '<b>open <i>nested</i></b>', 'stray close', 'inner', '&lt;<b>&gt;</b>']);
    });

    it('drops scripts, styles and frames with their content, unsafe hrefs and every other attribute', async () => {
      expect(
        await sanitized([
          'a<script>alert(1)</script>b<style>x</style>c<iframe src="x">y</iframe>d',
          '<script>unclosed',
          '<a href="javascript:alert(1)" onclick="alert(2)">js</a>',
          '<b onmouseover=alert(1) class="x">x</b>',
        ]),
      ).toEqual(['abcd', '', '<a rel="nofollow">js</a>', '<b>x</b>']);
    });

    it('no hostile comment keeps a script, an event handler or a javascript: link', async () => {
      for (const content of await sanitized(HOSTILE_COMMENTS)) {
        expect(content).not.toMatch(
          /<(script|img|svg|iframe|object|embed|style|form|input|meta|base|math|details|body)/i,
        );
        expect(content).not.toMatch(/<[^>]*\son\w+\s*=/i);
        expect(content).not.toMatch(/href="\s*(javascript|data|vbscript)/i);
        expect(content).not.toContain('[removed]');
      }
    });
  });
});
