import { loadMembershipProto, type membership } from '@flowboard/proto';
import { deriveClient, type DerivedClient, type MetricsRegistry } from '@flowboard/service-kit';

export const MEMBERSHIP_SERVICE = 'flowboard.membership.v1.MembershipService';

/**
 * membership's RPCs as functions, derived from the proto, each with the configured deadline; the caller and request
 * id travel in metadata from the request context. Reads retry on UNAVAILABLE, as the proto's `idempotency_level`
 * declares them; writes never do.
 */
export function createMembershipClient(
  address: string,
  deadlineMs: number,
  metrics?: MetricsRegistry,
): DerivedClient<membership.MembershipServiceClient> {
  const { MembershipService } = loadMembershipProto().flowboard.membership.v1;
  return deriveClient(MembershipService, address, { deadlineMs, metrics });
}

export type MembershipClient = ReturnType<typeof createMembershipClient>;
