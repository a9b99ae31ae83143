/** The page behind test/idb-tabs.test.ts: blogkit on IndexedDB, handed to the test through `globalThis.blogkit`. */
import { idbDriver } from '../../drivers/idb/index.js';
import { BlogError, createBlogService } from '../../src/index.js';

(globalThis as Record<string, unknown>).blogkit = { createBlogService, idbDriver, BlogError };
