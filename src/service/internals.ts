import type { Actor } from '../rules/access.js';
import type { Core } from '../core/core.js';

/**
 * The core and caller behind a service, for blogcore's own trusted modules: the HTTP helper's store-backed
 * features (Idempotency-Key) and blogcore/io, which restores records with the host service.
 * A registered symbol, so a helper loaded as another module copy (ESM beside CJS) still finds them.
 */
export const INTERNALS = Symbol.for('blogcore.internals');

export interface Internals {
  core: Core;
  actor: Actor;
  /**
   * The same service for one request that showed a consistency token: with read replicas, a session of its own
   * that starts at this service's position moved to `token` (its writes move this service's too); else this service.
   */
  fork(token: string): object;
}

export const internalsOf = (service: object) => (service as { [INTERNALS]?: Internals })[INTERNALS];
