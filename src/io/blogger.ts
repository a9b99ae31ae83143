import type { Core } from '../core.js';
import type { Restorer } from './restore.js';
export async function importBlogger(_r: Restorer, _c: AsyncIterable<string>): Promise<void> {}
export async function* exportBlogger(_c: Core, _b: string): AsyncGenerator<string> {}
