/**
 * How an account's storage is shared by the uploads in flight (docs/design.md, "Attachments": storage quota).
 *
 * An upload holds a reservation and asks for more room as its bytes arrive. The rule that keeps the quota exact
 * under any concurrency: an upload is refused only when its own bytes do not fit beside what is already stored —
 * never because of room other uploads in flight hold, since they may still fail, or hold more than they will
 * keep (an up-front bound counts the parts' headers). Room held by others is waited for instead, first come first
 * served: when the oldest waiting upload does not fit, the newest waiting ones give it the room they hold (each
 * keeps its place and then waits for all it needs). The account never passes its limit, and each refusal is one
 * that deciding the uploads one at a time would make too.
 */

/** An upload in flight, as the ledger holds it. */
export interface ReservationState {
  /** Reservations are numbered in the order their uploads began: a smaller id is the older upload. */
  id: number;
  /** The bytes it holds. */
  bytes: number;
  /** The bytes it asked for and is waiting for; undefined while it streams (or commits) without waiting. */
  waitingFor: number | undefined;
  /** Being changed by another transaction right now (it cannot give its room back in this one). */
  busy?: boolean;
}

/** One account's side of the ledger, read under its row lock. */
export interface AccountLedger {
  limitBytes: number;
  usedBytes: number;
  reservedBytes: number;
  /** Its live reservations (not expired), the asking one included. */
  reservations: readonly ReservationState[];
}

/**
 * `grant`: take `bytes` (at least what was asked). `refuse`: the upload does not fit (402). `wait`: ask again
 * shortly. Either of the last two may `preempt` waiting uploads: their room goes back to the account (and each
 * then waits for all it needs, its place in line kept); the asking one may be among them.
 */
export type Growth =
  | { kind: 'grant'; bytes: number; preempt: number[] }
  | { kind: 'refuse' }
  | { kind: 'wait'; preempt: number[] };

/**
 * What reservation `id` gets when it asks for `least` more bytes (and would take up to `most`, fewer round trips
 * later). `id` must be among `ledger.reservations`.
 */
export function decideGrowth(ledger: AccountLedger, id: number, least: number, most: number): Growth {
  const { limitBytes, usedBytes, reservedBytes, reservations } = ledger;
  const self = reservations.find((r) => r.id === id);
  if (!self) throw new Error(`reservation ${id} is not in the ledger`);
  // Its bytes so far plus these, beside what is stored: even if every other upload gave its room back, no.
  if (usedBytes + self.bytes + least > limitBytes) return { kind: 'refuse' };

  const room = limitBytes - usedBytes - reservedBytes;
  const olderWaiting = reservations.some((r) => r.id < id && r.waitingFor !== undefined);
  // As much as it would take that is free: near the limit, the first to ask takes the rest of the room in one
  // go, and the others wait for it at no cost instead of all growing by a few bytes at a time.
  const grant = (free: number, preempt: number[]): Growth => ({
    kind: 'grant',
    bytes: Math.max(least, Math.min(most, free)),
    preempt,
  });
  if (!olderWaiting && least <= room) return grant(room, []);

  // Held up by room others hold, or by an older upload first in line. Uploads that stream are left alone: they
  // will finish (giving back what they do not keep), fail, or come to wait. Among the waiting, the oldest goes
  // first: it is served when it asks again if it fits now, else the newest waiting ones give it their room
  // (they could not use it before the oldest anyway) — when it is the one asking, the step it would take, so it
  // streams on without asking again.
  const line = reservations
    .filter((r) => r.id !== id && r.waitingFor !== undefined)
    .concat({ ...self, waitingFor: least })
    .sort((a, b) => a.id - b.id);
  const [oldest] = line;
  const needed = oldest?.waitingFor ?? 0;
  if (!oldest || (oldest.id !== id && needed <= room)) return { kind: 'wait', preempt: [] };
  const target = oldest.id === id ? most : needed;
  const preempt: number[] = [];
  let free = room;
  for (const r of line.slice(1).reverse()) {
    if (free >= target) break;
    if (r.bytes === 0 || r.busy) continue;
    preempt.push(r.id);
    free += r.bytes;
  }
  return oldest.id === id && least <= free ? grant(free, preempt) : { kind: 'wait', preempt };
}
