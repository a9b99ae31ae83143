import type { Restorer } from './restore.js';
export async function importGhost(_r: Restorer, _c: AsyncIterable<string>): Promise<void> {}
