import { loadMembershipProto } from '@flowboard/proto';
import { deriveClient, type MetricsRegistry } from '@flowboard/service-kit';
import type { NameSource } from '../render/api-renderer';

/** membership's ResolveNames over gRPC, with the configured deadline; a read, so retried on UNAVAILABLE. */
export function membershipNames(
  address: string,
  deadlineMs: number,
  metrics?: MetricsRegistry,
): NameSource & { close(): void } {
  const { MembershipService } = loadMembershipProto().flowboard.membership.v1;
  const client = deriveClient(MembershipService, address, { deadlineMs, metrics });
  return {
    async resolve(projectId, userIds) {
      const answer = await client.resolveNames({ project_id: projectId, user_ids: userIds });
      return {
        projectName: answer.project_name,
        users: new Map(answer.users.map((user) => [user.id, user])),
      };
    },
    close: () => client.close(),
  };
}
