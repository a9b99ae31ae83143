/** A better-sqlite3 Database for tests that counts how often statements run (the SQLite driver's `database` option). */
import Database from 'better-sqlite3';
import type { SqliteDatabase } from '../../../drivers/sqlite/index.js';

/** A WAL Database on `filename` that counts the runs of statements whose SQL matches `pattern`. */
export function counting(filename: string, pattern: RegExp): { db: SqliteDatabase; runs: () => number } {
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  let runs = 0;
  const prepare = db.prepare.bind(db);
  const wrapped = new Proxy(db, {
    get(target, key) {
      if (key !== 'prepare') {
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (sql: string) => {
        const statement = prepare(sql);
        if (!pattern.test(sql)) return statement;
        for (const method of ['get', 'all', 'run'] as const) {
          const run = statement[method].bind(statement) as (...args: unknown[]) => unknown;
          (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
            runs++;
            return run(...args);
          };
        }
        return statement;
      };
    },
  });
  return { db: wrapped as unknown as SqliteDatabase, runs: () => runs };
}
