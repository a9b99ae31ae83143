/** Who may see and do what (docs/design.md §5): roles, views and the checks every operation shares. */
import { BlogError, forbidden } from '../util/errors.js';
import type { Role } from '../schema/schemas.js';

const LEVEL: Record<Role, number> = { READER: 1, AUTHOR: 2, ADMIN: 3 };

/** The caller of one operation: trusted host code, a signed-in user, or an anonymous reader. */
export type Actor = { kind: 'host' } | { kind: 'user'; userId: string } | { kind: 'anonymous' };

/** The caller's standing in one blog. `role` is null for anonymous callers and non-members. */
export interface Standing {
  actor: Actor;
  role: Role | null;
  /** The detail level responses are shaped at. */
  view: Role;
}

export const atLeast = (view: Role, role: Role) => LEVEL[view] >= LEVEL[role];

/** The view an operation answers at: the one asked for (if the caller holds it), else the caller's own role. */
export function resolveView(role: Role | null, requested: Role | undefined): Role {
  const own: Role = role ?? 'READER';
  if (requested && LEVEL[requested] > LEVEL[own]) {
    throw forbidden(`The ${requested} view needs the ${requested} role on this blog`);
  }
  return requested ?? own;
}

export function requireRole(s: Standing, role: Role, what: string): void {
  if (!s.role || LEVEL[s.role] < LEVEL[role])
    throw forbidden(`Only blog ${role === 'ADMIN' ? 'admins' : 'authors and admins'} may ${what}`);
}

export const actorUserId = (a: Actor) => (a.kind === 'user' ? a.userId : undefined);

export const authError = (message: string) =>
  new BlogError({ code: 401, reason: 'authError', message, location: 'Authorization', locationType: 'header' });
