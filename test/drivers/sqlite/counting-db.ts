/** A better-sqlite3 Database for tests that counts statement runs and rows (the SQLite driver's `database` option). */
import Database from 'better-sqlite3';
import type { SqliteDatabase } from '../../../drivers/sqlite/index.js';

/**
 * A WAL Database on `filename` that counts the runs of statements whose SQL matches `pattern`, the rows every
 * statement hands out (a row per `get` that finds one, each row of an `all`), and lists the SQL of every run.
 */
export function counting(
  filename: string,
  pattern: RegExp,
): { db: SqliteDatabase; runs: () => number; rows: () => number; ran: string[] } {
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  let runs = 0;
  let rows = 0;
  const ran: string[] = [];
  const prepare = db.prepare.bind(db);
  const wrapped = new Proxy(db, {
    get(target, key) {
      if (key !== 'prepare') {
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (sql: string) => {
        const statement = prepare(sql);
        const matched = pattern.test(sql);
        for (const method of ['get', 'all', 'run'] as const) {
          const run = statement[method].bind(statement) as (...args: unknown[]) => unknown;
          (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
            if (matched) runs++;
            ran.push(sql);
            const out = run(...args);
            if (method === 'all') rows += (out as unknown[]).length;
            else if (method === 'get' && out !== undefined) rows++;
            return out;
          };
        }
        return statement;
      };
    },
  });
  return { db: wrapped as unknown as SqliteDatabase, runs: () => runs, rows: () => rows, ran };
}
