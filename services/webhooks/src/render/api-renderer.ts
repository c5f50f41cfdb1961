import type { Envelope, ResourceChangedV1 } from '@flowboard/events';
import { changeUserIds, renderChange, type ChangeNames } from '@flowboard/representation';
import type { PayloadRenderer, RenderedChange } from '../application/ports';

/** The names a payload shows, looked up once per event (membership's ResolveNames). */
export interface NameSource {
  resolve(projectId: number, userIds: number[]): Promise<ChangeNames>;
}

/**
 * The change as the API shows it, rendered by packages/representation (renderChange: the same builders as the
 * gateway's GET answers and its change stream), with the project's and users' names resolved in one call to
 * membership. A resource of an unexpected shape renders what it has rather than failing; only a failing lookup
 * throws, and the event is retried.
 */
export function createApiRenderer(names: NameSource): PayloadRenderer {
  return {
    async render(event: Envelope<ResourceChangedV1>): Promise<RenderedChange> {
      const resolved = await names.resolve(event.data.projectId, changeUserIds(event.data));
      // The event's id, type and time are written by the ingestion (payloadBody), from the event itself.
      const { id: _id, type: _type, timestamp: _timestamp, ...rendered } = renderChange(event, resolved);
      return rendered;
    },
  };
}
