/** The page behind test/drivers/idb/tabs.test.ts: blogcore on IndexedDB, handed to the test through `globalThis.blogcore`. */
import { idbDriver } from '../../drivers/idb/index.js';
import { BlogError, createBlogService } from '../../src/index.js';

(globalThis as Record<string, unknown>).blogcore = { createBlogService, idbDriver, BlogError };
