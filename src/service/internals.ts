import type { Actor } from '../rules/access.js';
import type { Core } from '../core/core.js';

/**
 * The core and caller behind a service, for blogcore's own trusted modules: the HTTP helper's store-backed
 * features (Idempotency-Key) and blogcore/io, which restores records with the host service.
 * A registered symbol, so a helper loaded as another module copy (ESM beside CJS) still finds them.
 */
export const INTERNALS = Symbol.for('blogcore.internals');
export const internalsOf = (service: object) => (service as { [INTERNALS]?: { core: Core; actor: Actor } })[INTERNALS];
