import type { Operation, Resource, VocabularyName } from '../operation';
import type { Route } from '../router';
import { adminOperations } from './admin.routes';
import { apiKeyOperations } from './api-keys.routes';
import { attachmentOperations } from './attachments.routes';
import { commentOperations } from './comments.routes';
import type { RouteDeps } from './deps';
import { eventOperations } from './events.routes';
import { inviteOperations } from './invites.routes';
import { memberOperations } from './members.routes';
import { meStoryOperations } from './me-stories.routes';
import { phaseOperations, PHASE_ENRICHMENTS } from './phases.routes';
import { projectOperations, PROJECT_ENRICHMENTS } from './projects.routes';
import { roleOperations } from './roles.routes';
import { searchOperations } from './search.routes';
import { storyBulkOperations } from './stories-bulk.routes';
import { storyOperations } from './stories.routes';
import { STORY_ENRICHMENTS } from './story-views';
import { tagOperations, TAG_ENRICHMENTS } from './tags.routes';
import { taskOperations } from './tasks.routes';
import { userOperations } from './users.routes';
import { webhookOperations } from './webhooks.routes';

/**
 * Every resource of the API, in the document's order. Each module declares its operations once (method, path,
 * access, cacheability, schemas, handler); the router and the OpenAPI document both read them from here.
 */
const RESOURCES: ReadonlyArray<Resource<RouteDeps>> = [
  userOperations,
  apiKeyOperations,
  meStoryOperations,
  adminOperations,
  projectOperations,
  memberOperations,
  storyOperations,
  storyBulkOperations,
  phaseOperations,
  tagOperations,
  taskOperations,
  commentOperations,
  attachmentOperations,
  roleOperations,
  inviteOperations,
  webhookOperations,
  eventOperations,
  searchOperations,
];

/** THE route table: authentication, 404/405, the access check and the response format all come from it. */
export function routeTable(deps: RouteDeps): Route[] {
  return RESOURCES.flatMap((resource) => resource.routes(deps));
}

/** Every operation of the API: the OpenAPI document's `paths`. */
export const OPERATIONS: readonly Operation[] = RESOURCES.flatMap((resource) => resource.operations);

/** The `with=` vocabularies by name, as the handlers parse them (docs/compat.md §4.3). */
export const ENRICHMENTS: Record<VocabularyName, readonly string[]> = {
  story: STORY_ENRICHMENTS.names,
  project: PROJECT_ENRICHMENTS.names,
  phase: PHASE_ENRICHMENTS.names,
  tag: TAG_ENRICHMENTS.names,
  me: ['stories'],
  none: [],
};
