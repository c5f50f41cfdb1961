import { DomainError } from '@flowboard/service-kit';

/**
 * Where a client's last sync (updatedSince) read the board: the PostgreSQL snapshot of that read, and the database
 * it came from (its system identifier, new with every cluster: a position from before a restore into a new cluster
 * is refused rather than misread). Text form `<system>:<xmin>:<xmax>:<xip,…>` (the snapshot's own text after the
 * system). The gateway wraps it in its opaque token; this side checks it again, as a contract of its own.
 */
export interface SyncPosition {
  system: string;
  /** pg_snapshot text: `xmin:xmax:xip,…`. */
  snapshot: string;
}

const FORM = /^(\d{1,20}):(\d{1,20}):(\d{1,20}):((?:\d{1,20}(?:,\d{1,20})*)?)$/;
/** A snapshot lists the transactions in progress: at most a few hundred (max_connections); a longer one is forged. */
const MAX_IN_PROGRESS = 10_000;

const invalid = (why: string) =>
  new DomainError('InvalidArgument', `Invalid sync position: ${why}.`, { problem: 'invalid-parameter' });

export function parseSyncPosition(text: string): SyncPosition {
  const m = FORM.exec(text);
  if (!m) throw invalid('not a position this service answered');
  const [, system, xmin, xmax, list] = m as unknown as [string, string, string, string, string];
  const low = BigInt(xmin);
  const high = BigInt(xmax);
  const inProgress = list === '' ? [] : list.split(',').map(BigInt);
  if (low > high) throw invalid('its snapshot ends before it starts');
  if (inProgress.length > MAX_IN_PROGRESS) throw invalid('its snapshot is too long');
  // pg_snapshot's own rules (its input refuses the rest, which would otherwise be a 500).
  let previous = low - 1n;
  for (const xid of inProgress) {
    if (xid <= previous || xid >= high) throw invalid('its snapshot is malformed');
    previous = xid;
  }
  if (BigInt(system) === 0n || low < 1n || high >= 2n ** 63n) throw invalid('out of range');
  return { system, snapshot: `${xmin}:${xmax}:${list}` };
}

export const formatSyncPosition = (position: SyncPosition): string =>
  `${position.system}:${position.snapshot}`;

/** How long a deleted story's tombstone is kept: a sync token older than that answers 410 (start over). */
export const TOMBSTONE_RETENTION_DAYS = 30;
