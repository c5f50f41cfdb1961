import type { ProjectAccessResolver } from '../../authz/project-access';
import type { BoardsClient } from '../../clients/boards.client';
import type { FilesClient } from '../../clients/files.client';
import type { FilesProxy } from '../../clients/files-proxy';
import type { MembershipClient } from '../../clients/membership.client';

/** What route handlers are built from: the upstream clients, created once at boot. */
export interface RouteDeps {
  membership: MembershipClient;
  boards: BoardsClient;
  files: FilesClient;
  filesProxy: FilesProxy;
  access: ProjectAccessResolver;
}
