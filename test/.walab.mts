// Usage: cd <worktree> && npx tsx /work/walab.mts  — the writers rows alone on a durable server of their own.
import { startPostgres } from './drivers/postgres/server.js';
import { writersRows } from './bench/postgres-writers.js';
const server = await startPostgres({ durable: true });
try {
  const lines = await writersRows(server.url, { quick: false, budgetMs: 1000, args: { 'pg-writers-ms': '6000' } });
  console.log(lines.join('\n'));
} finally { await server.stop(); }
