/** Turns whatever went wrong into words for the person at the keyboard (and never hides it). */
import { BlogError } from 'blogcore';

export interface Problem {
  /** What happened, in plain words. */
  title: string;
  /** The service's own message. */
  detail: string;
  /** For bug reports: `412 conditionNotMet`, the parameter at fault. */
  code?: string;
}

export const isConflict = (error: unknown): boolean => BlogError.is(error) && error.code === 412;
export const isNotFound = (error: unknown): boolean => BlogError.is(error) && error.code === 404;

export function describe(error: unknown): Problem {
  if (BlogError.is(error)) {
    const code = `${error.code} ${error.reason}${error.location ? ` · ${error.location}` : ''}`;
    const detail = error.message;
    switch (error.code) {
      case 400:
        return { title: 'Please check what you entered.', detail, code };
      case 401:
        return { title: 'You are not signed in.', detail, code };
      case 403:
        return { title: 'You are not allowed to do that.', detail, code };
      case 404:
        return { title: 'Not found — it may have been deleted, perhaps in another tab.', detail, code };
      case 409:
        return { title: 'That cannot be done in its current state.', detail, code };
      case 412:
        return { title: 'Changed in another tab — reload to see it, or overwrite it with your version.', detail, code };
      case 413:
        return { title: 'That is too large to save.', detail, code };
      default:
        return { title: 'The blog could not do that.', detail, code };
    }
  }
  const e = error instanceof Error ? error : new Error(String(error));
  if (e.name === 'SignInError') return { title: 'Could not sign in to the server.', detail: e.message };
  if (e.name === 'RemoteError') {
    const status = (e as Error & { status?: number }).status;
    if (!status)
      return {
        title: 'The server cannot be reached right now.',
        detail: `${e.message} Your changes are kept here and sent later.`,
      };
    if (status === 401 || status === 403)
      return {
        title: 'The server refused your token.',
        detail: `${e.message} Sign out and sign in again with a valid token.`,
      };
    return { title: 'The server refused a change.', detail: e.message, code: String(status) };
  }
  if (e.name === 'IdbBlockedError') {
    return {
      title: 'Another tab keeps an older version of this editor open.',
      detail: 'Close the other tabs of this editor, then reload this one.',
    };
  }
  if (e.name === 'QuotaExceededError') {
    return {
      title: 'This browser has no room left for your blog.',
      detail: 'Free some space (or delete posts you no longer need), then try again.',
    };
  }
  if (e.name === 'InvalidStateError' || e.name === 'UnknownError') {
    return {
      title: 'The browser could not open its local database.',
      detail: `${e.message} (Private windows and some privacy settings block IndexedDB.)`,
    };
  }
  return { title: 'Something went wrong.', detail: e.message || e.name };
}
