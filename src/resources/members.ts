/**
 * A blog's members and their roles (READER, AUTHOR, ADMIN): blog ADMINs (and host code) only. Loaded on first
 * use, like the rest of blog management (src/util/lazy.ts).
 */
import { actorUserId, leavesNoAdmin, requireRole, type Actor } from '../rules/access.js';
import type { Core } from '../core/core.js';
import type { StoredDoc } from '../store/driver.js';
import { conflict, notFound } from '../util/errors.js';
import type { MembersListParams, MembersRemoveParams, MembersSetParams } from '../schema/params.js';
import { memberId, put, type MemberRecord } from '../store/records.js';
import type { Role } from '../schema/schemas.js';
import { membersParams as params } from '../schema/members.js';
import type { Member, MemberList } from '../schema/resources.js';

export function membersApi(core: Core, actor: Actor) {
  const actorId = actorUserId(actor);

  /** The members of a blog: bounded by how many people work on it, never by its content. */
  async function members(blogId: string): Promise<StoredDoc<MemberRecord>[]> {
    const out: StoredDoc<MemberRecord>[] = [];
    for (;;) {
      const last = out[out.length - 1];
      const batch = await core.driver.list({
        collection: 'members',
        index: 'blog',
        prefix: [blogId],
        ...(last ? { lower: { key: [last.doc.userId], open: true } } : {}),
        direction: 'asc',
        limit: 500,
      });
      out.push(...batch);
      if (batch.length < 500) return out;
    }
  }

  /**
   * Membership changes commit together with the (unchanged) blog record, so two admins changing roles at
   * once are serialised and the "last ADMIN" rule cannot be raced past.
   */
  async function changeMembers(blogId: string, userId: string, role: Role | null) {
    const s = await core.writer(actor, blogId);
    requireRole(s, 'ADMIN', 'manage members');
    if (role && !(await core.user(userId))) throw notFound('User');
    const told = () =>
      role
        ? core.event('member.set', { blogId, id: userId, actorId }, () => ({ userId, role }))
        : core.event('member.removed', { blogId, id: userId, actorId });
    return core.transact(async () => {
      const blog = await core.get('blogs', blogId);
      if (!blog) throw notFound('Blog');
      const all = await members(blogId);
      const current = all.find((m) => m.doc.userId === userId);
      if (!role && !current) throw notFound('Member');
      if (
        current &&
        leavesNoAdmin(
          all.map((m) => m.doc.role),
          current.doc.role,
          role,
        )
      ) {
        throw conflict('A blog must keep at least one ADMIN: add another admin first');
      }
      const lock = put('blogs', blog.doc, blog.version);
      const ops = role
        ? [lock, put('members', { id: memberId(blogId, userId), blogId, userId, role }, current?.version ?? 0)]
        : [
            lock,
            { type: 'delete' as const, collection: 'members', id: memberId(blogId, userId), expect: current!.version },
          ];
      return { ops, result: undefined };
    }, told);
  }

  return {
    async set(input: MembersSetParams): Promise<Member> {
      const p = core.parse(params.membersSet, input);
      await changeMembers(p.blogId, p.userId, p.role);
      return { userId: p.userId, role: p.role };
    },

    async remove(input: MembersRemoveParams): Promise<void> {
      const p = core.parse(params.membersRemove, input);
      await changeMembers(p.blogId, p.userId, null);
    },

    async list(input: MembersListParams): Promise<MemberList> {
      const p = core.parse(params.membersList, input);
      const s = await core.reader(actor, p.blogId);
      requireRole(s, 'ADMIN', 'list members');
      return { items: (await members(p.blogId)).map((m) => ({ userId: m.doc.userId, role: m.doc.role })) };
    },
  };
}
