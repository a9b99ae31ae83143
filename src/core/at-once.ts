/**
 * What a call can do at once where the driver looks without waiting (`logNewestNow`: SQLite, memory). Used by the
 * HTTP helper's kept answers (through src/service/at-once.ts) and a `posts.get` answered in one step
 * (resources/post-now.ts): a file no start-up module imports, so a browser's first download leaves it out.
 */
import type { Core } from './core.js';
import type { RecordCache } from './record-cache.js';

/**
 * What a call does before it reads, without a call and without waiting: looks at the change log (other processes'
 * commits reach `movedListeners`) and sees that no scheduled post is due. A kept answer (src/http/kept.ts) is as
 * current after it as a call beginning now. True when that was done at once (an open store whose driver looks
 * without waiting, nothing moved, no post due); false: `await core.promoteDue()` does it.
 */
export function caughtUp(core: Core): boolean {
  core.cache.begin();
  const due = core.nextDue;
  // (A next due time not known, undefined, reads as '': after no time.)
  return core.opened && freshNow(core.cache) && (due === '' || (due ?? '') > core.nowIso());
}

/**
 * `cache.fresh()` without waiting, where the driver can look at once (`logNewestNow`): true when the log was looked
 * at since the last call began and nothing moved; false leaves the look (and what it finds) to `fresh`.
 */
export function freshNow(cache: RecordCache): boolean {
  const { asked } = cache;
  if (cache.checked < asked && !cache.checking && cache.host.driver.logNewestNow?.() === cache.seen) {
    cache.checked = asked;
  }
  return cache.checked >= asked;
}
