import type { Core } from '../core.js';
import type { Restorer } from './restore.js';
export async function importWxr(_r: Restorer, _c: AsyncIterable<string>): Promise<void> {}
export async function* exportWxr(_c: Core, _b: string): AsyncGenerator<string> {}
