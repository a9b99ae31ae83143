/**
 * The HTTP helper's look before a kept answer, without waiting where it can (src/core/at-once.ts): a module of its own,
 * which no start-up module imports, so a browser's first download leaves it out.
 */
export { caughtUp } from '../core/at-once.js';
