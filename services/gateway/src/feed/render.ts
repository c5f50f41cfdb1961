import {
  InvalidEventError,
  readResourceChanged,
  type Envelope,
  type ResourceChangedV1,
} from '@flowboard/events';
import type { LogRecord } from '@flowboard/messaging';
import { changePayloadJson, changeUserIds, renderChange, type UsersById } from '@flowboard/representation';
import type { Logger } from '@flowboard/service-kit';
import { streamEvent, type StreamEvent } from '../stream';

/** The names a payload shows: the project's and the users' (membership's ResolveNames). */
export interface NameLookup {
  resolve(projectId: number, userIds: number[]): Promise<{ projectName: string; users: UsersById }>;
}

/** Name lookups of one batch in flight at once. */
const LOOKUPS_AT_ONCE = 16;

/** Longest wait between two tries of a name lookup while membership does not answer. */
const MAX_RETRY_MS = 5_000;

/**
 * Records of the topic → the stream's events, each with the very payload a webhook gets (packages/representation's
 * renderChange), rendered once per replica. Names are looked up once per project per batch. A type this release does
 * not know (the type is an open enum) and an unreadable record are skipped: the ring tolerates holes in offsets.
 *
 * While membership cannot say the names, the partition waits and tries again (the events come late, none is lost
 * or shown without its names); connections stay open and keep their heartbeats meanwhile.
 */
export class ChangeRenderer {
  constructor(
    private readonly names: NameLookup,
    private readonly logger: Logger,
    private readonly stopped: () => boolean,
  ) {}

  async render(partition: number, records: readonly LogRecord[]): Promise<StreamEvent[]> {
    const changes: Array<{ record: LogRecord; event: Envelope<ResourceChangedV1> }> = [];
    for (const record of records) {
      const event = this.read(record);
      if (event) changes.push({ record, event });
    }
    const byProject = new Map<number, Set<number>>();
    for (const { event } of changes) {
      const ids = byProject.get(event.data.projectId) ?? new Set<number>();
      for (const id of changeUserIds(event.data)) ids.add(id);
      byProject.set(event.data.projectId, ids);
    }
    // One lookup per project of the batch, at most LOOKUPS_AT_ONCE at a time: one after another, a batch of many
    // projects waited for each round trip in turn (the feed fell seconds behind at 100 changes a second).
    const names = new Map<number, { projectName: string; users: UsersById }>();
    const projects = [...byProject];
    const lookUpNext = async (): Promise<void> => {
      for (let next = projects.shift(); next; next = projects.shift()) {
        const [projectId, ids] = next;
        names.set(projectId, await this.lookUp(projectId, [...ids]));
      }
    };
    await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, projects.length) }, lookUpNext));
    return changes.map(({ record, event }) =>
      streamEvent({
        partition,
        offset: record.offset,
        projectId: event.data.projectId,
        type: event.data.type,
        payload: changePayloadJson(renderChange(event, names.get(event.data.projectId)!)),
      }),
    );
  }

  private read(record: LogRecord): Envelope<ResourceChangedV1> | undefined {
    try {
      const read = readResourceChanged(record.value);
      if ('unknownType' in read) {
        this.logger.debug(
          { type: read.unknownType, offset: record.offset },
          'change of an unknown type: not streamed',
        );
        return undefined;
      }
      return read.event;
    } catch (err) {
      if (!(err instanceof InvalidEventError)) throw err;
      this.logger.warn(
        { reason: err.message, offset: record.offset },
        'unreadable change event: not streamed',
      );
      return undefined;
    }
  }

  private async lookUp(projectId: number, userIds: number[]) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.names.resolve(projectId, userIds);
      } catch (err) {
        if (this.stopped()) throw err;
        const waitMs = Math.min(MAX_RETRY_MS, 200 * 2 ** Math.min(attempt - 1, 5));
        if (attempt === 1)
          this.logger.warn({ err, retryInMs: waitMs }, 'names for the change stream not found; retrying');
        await new Promise((r) => setTimeout(r, waitMs));
      }
    }
  }
}
