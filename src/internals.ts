import type { Actor } from './access.js';
import type { Core } from './core.js';

/**
 * The core and caller behind a scoped service, for the HTTP helper's store-backed features (Idempotency-Key).
 * A registered symbol, so a helper loaded as another module copy (ESM beside CJS) still finds them.
 */
export const INTERNALS = Symbol.for('blogcore.internals');
export const internalsOf = (service: object) => (service as { [INTERNALS]?: { core: Core; actor: Actor } })[INTERNALS];
