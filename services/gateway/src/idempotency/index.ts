/**
 * Idempotency-Key's store: the answers of requests sent with a key, shared by every gateway replica through Redis.
 * The HTTP side (reading the header, keeping and replaying answers) is edge/idempotent.ts.
 */
export {
  IdempotencyStore,
  type Claim,
  type IdempotencySettings,
  type Lease,
  type StoredResponse,
} from './store';
