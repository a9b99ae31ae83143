/** The one place the editor meets `blogcore/sync` (its types, re-exported for the views). */
export {
  type Conflict,
  type ConflictChoice,
  type ConflictVersion,
  createReplica,
  type PendingChange,
  type Replica,
  type SyncResult,
} from 'blogcore/sync';
