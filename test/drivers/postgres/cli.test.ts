/**
 * `blogcore serve --db postgres://…` and `blogcore token --db postgres://…` (the built CLI, dist/cli.js): the
 * store in its schema, two servers on one database serving the same blog, the password never printed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { requireBuild, start } from '../../http/spawn.js';
import { dropOwnSchemas, freshSchema, pgUrl } from './env.js';

requireBuild();
afterAll(() => dropOwnSchemas());

describe('CLI on PostgreSQL', () => {
  it('serves a postgres:// store from two processes, hides the password, and rotates the token', async () => {
    const schema = freshSchema('cli');
    const db = `${pgUrl()}?schema=${schema}`;
    const password = new URL(pgUrl()).password;
    const first = start(['dist/cli.js', 'serve', '--db', db, '--port', '0', '--quiet']);
    await first.waitFor(/Ctrl\+C stops the server/);
    const out = first.output();
    expect(out).not.toContain(password);
    expect(out).toContain(`:***@`);
    const token = out.match(/^ +(bc_[\w-]{20,})$/m)![1]!;
    const blogPath = new URL(out.match(/Blog: +(\S+)/)![1]!).pathname;
    // A second app server on the same store: no new demo, no new token, the same blog.
    const second = start(['dist/cli.js', 'serve', '--db', db, '--port', '0', '--quiet']);
    await second.waitFor(/Ctrl\+C stops the server/);
    expect(second.output()).not.toMatch(/^ +bc_/m);
    const origin = (p: typeof first) => p.output().match(/API: +(http:\/\/127\.0\.0\.1:\d+)\/v3\//)![1]!;
    const made = await fetch(`${origin(first)}${blogPath}/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Written on one', content: '<p>x</p>' }),
    });
    expect(made.status).toBe(200);
    const id = ((await made.json()) as { id: string }).id;
    const seen = await fetch(`${origin(second)}${blogPath}/posts/${id}`);
    expect(seen.status).toBe(200);
    expect(((await seen.json()) as { title: string }).title).toBe('Written on one');
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(await second.stop('SIGTERM')).toBe(0);

    const rotate = start(['dist/cli.js', 'token', '--db', db]);
    expect(await rotate.exited).toBe(0);
    expect(rotate.output()).toMatch(/^bc_[\w-]{20,}$/m);
    // token refuses a schema that holds no store, naming the store without its password.
    const none = start(['dist/cli.js', 'token', '--db', `${pgUrl()}?schema=${freshSchema('none')}`]);
    expect(await none.exited).not.toBe(0);
    expect(none.output()).toMatch(/no blogcore store in schema/);
    expect(none.output()).not.toContain(password);
  }, 60_000);

  it('never prints the password: every command, hint, error and log line, first and second start included', async () => {
    const password = new URL(pgUrl()).password;
    expect(password.length).toBeGreaterThan(3);
    const db = `${pgUrl()}?schema=${freshSchema('secret')}`;
    const outputs: Array<[string, string]> = [];
    const run = async (...args: string[]) => {
      const p = start(['dist/cli.js', ...args]);
      await p.exited;
      outputs.push([args.join(' '), p.output()]);
      return p.output();
    };
    const serveOnce = async () => {
      const p = start(['dist/cli.js', 'serve', '--db', db, '--port', '0']);
      await p.waitFor(/Ctrl\+C stops the server/);
      const api = p.output().match(/API: +(\S+)/)![1]!;
      await fetch(`${api}blogs/nope`); // a log line
      await p.stop('SIGTERM');
      outputs.push(['serve', p.output()]);
      return p.output();
    };
    await serveOnce(); // the first start: demo and token
    const second = await serveOnce(); // the second start prints how to mint a token, with the store named
    expect(second).toMatch(/token --db postgres:\/\/postgres:\*\*\*@/);
    await run('token', '--db', db);
    await run('users', 'list', '--db', db);
    await run('import', 'test/io/fixtures/wordpress-1.2.xml', '--db', db);
    await run('export', '--db', db, '--blog', 'https://cafe.example.org/', '--format', 'wxr');
    // Failures: a schema with no store, a port nothing listens on, a wrong password given in a parameter, a bad flag.
    await run('token', '--db', `${pgUrl()}?schema=${freshSchema('none')}`);
    const closed = pgUrl().replace(/:(\d+)\//, ':1/');
    await run('token', '--db', closed);
    await run('serve', '--db', closed, '--port', '0');
    const url = new URL(pgUrl());
    await run('users', 'list', '--db', `postgres://${url.username}@${url.host}${url.pathname}?password=${password}x`);
    await run('serve', '--db', db, '--port', 'none');
    expect(outputs.length).toBe(11);
    for (const [command, out] of outputs)
      expect(out, `blogcore ${command.replaceAll(password, '***')}`).not.toContain(password);
  }, 90_000);
});
