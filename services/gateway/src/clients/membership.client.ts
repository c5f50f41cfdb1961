import { loadMembershipProto, type membership } from '@flowboard/proto';
import type { DerivedClient, Upstream, UpstreamOptions } from '@flowboard/service-kit';

export const MEMBERSHIP_SERVICE = 'flowboard.membership.v1.MembershipService';

/** What createUpstream needs to know of membership: its services and the name its health reports. */
export function membershipUpstream(): Pick<UpstreamOptions, 'services' | 'healthService'> {
  return {
    services: [loadMembershipProto().flowboard.membership.v1.MembershipService.service],
    healthService: MEMBERSHIP_SERVICE,
  };
}

/**
 * membership's RPCs as functions, derived from the proto, each with the configured deadline; the caller and request
 * id travel in metadata from the request context. Reads retry on UNAVAILABLE, as the proto's `idempotency_level`
 * declares them; writes never do. Calls go through the upstream's breaker (503 at once while membership is down).
 */
export function createMembershipClient(
  upstream: Upstream,
  deadlineMs: number,
): DerivedClient<membership.MembershipServiceClient> {
  const { MembershipService } = loadMembershipProto().flowboard.membership.v1;
  return upstream.derive(MembershipService, { deadlineMs });
}

export type MembershipClient = ReturnType<typeof createMembershipClient>;
