import { int, resource, SHARED_SCHEMAS, str, type ResourceSchemas, type Schema } from '../schema';
import { adminSchemas } from '../resources/admin.schemas';
import { apiKeySchemas } from '../resources/api-keys.schemas';
import { attachmentSchemas } from '../resources/attachments.schemas';
import { commentSchemas } from '../resources/comments.schemas';
import { eventSchemas } from '../resources/events.schemas';
import { inviteSchemas } from '../resources/invites.schemas';
import { metricSchemas } from '../resources/metrics.schemas';
import { phaseSchemas } from '../resources/phases.schemas';
import { projectSchemas } from '../resources/projects.schemas';
import { roleSchemas } from '../resources/roles.schemas';
import { storySchemas } from '../resources/stories.schemas';
import { tagSchemas } from '../resources/tags.schemas';
import { taskSchemas } from '../resources/tasks.schemas';
import { userSchemas } from '../resources/users.schemas';
import { webhookSchemas } from '../resources/webhooks.schemas';

/**
 * The document's `components.schemas`, assembled from the shapes every resource shares (../schema.ts) and each
 * resource's own (resources/<resource>.schemas.ts), plus the error body of the document's error responses. Both
 * formats share one schema per shape: the `xml` keywords give the element names.
 */

/**
 * Every failure's body; only the document's error responses (document.ts) name it. Problem details (RFC 9457)
 * as wire/problem.ts writes them.
 */
const PROBLEM: Schema = resource(
  'error',
  ['type', 'title', 'status', 'detail', 'requestId'],
  {
    type: {
      type: 'string',
      pattern: '^urn:flowboard:problem:[a-z-]+$',
      examples: ['urn:flowboard:problem:not-found'],
    },
    title: str(),
    status: int(),
    detail: str('Names the offending field, property, enrichment or argument.'),
    requestId: str('Equals the `X-Request-Id` header.'),
    scope: str(
      '`insufficient-scope` (403) only: what the API key lacks, e.g. `stories:write` or `project:42` (README ' +
        '"Scoped API keys"); also in `WWW-Authenticate` (`error="insufficient_scope"`).',
    ),
  },
  {
    description:
      'Problem details (RFC 9457) plus `requestId`; in XML `<error>` with the same children in alphabetical ' +
      'order (docs/compat.md §3.4). Flowboard addition.',
  },
);

/**
 * The order the document lists them in, kept as released so that the document stays the same byte for byte:
 * every set's responses, then the error body, then the page forms (users' and keys' after invites'), then every
 * set's request bodies. A new resource's set goes at the end of both lists.
 */
const SETS: readonly ResourceSchemas[] = [
  SHARED_SCHEMAS,
  userSchemas,
  apiKeySchemas,
  metricSchemas,
  projectSchemas,
  storySchemas,
  phaseSchemas,
  tagSchemas,
  taskSchemas,
  commentSchemas,
  attachmentSchemas,
  roleSchemas,
  inviteSchemas,
  webhookSchemas,
  adminSchemas,
  eventSchemas,
];
const PAGE_ORDER: readonly ResourceSchemas[] = [
  projectSchemas,
  storySchemas,
  phaseSchemas,
  tagSchemas,
  taskSchemas,
  commentSchemas,
  attachmentSchemas,
  roleSchemas,
  inviteSchemas,
  userSchemas,
  apiKeySchemas,
  webhookSchemas,
];

export function componentSchemas(): Record<string, Schema> {
  const unordered = SETS.filter((set) => set.pages && !PAGE_ORDER.includes(set));
  if (unordered.length) {
    const names = unordered.flatMap((set) => Object.keys(set.pages ?? {}));
    throw new Error(`page forms missing from PAGE_ORDER: ${names.join(', ')}`);
  }
  const out: Record<string, Schema> = {};
  const add = (schemas: Record<string, Schema> = {}) => {
    for (const [name, schema] of Object.entries(schemas)) {
      if (name in out) throw new Error(`two component schemas are named ${name}`);
      out[name] = schema;
    }
  };
  for (const set of SETS) add(set.responses);
  add({ Problem: PROBLEM });
  for (const set of PAGE_ORDER) add(set.pages);
  for (const set of SETS) add(set.requests);
  return out;
}
