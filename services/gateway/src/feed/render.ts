import {
  InvalidEventError,
  readResourceChanged,
  type Envelope,
  type ResourceChangedV1,
} from '@flowboard/events';
import type { LogRecord } from '@flowboard/messaging';
import { changePayloadJson, changeUserIds, renderChange, type UsersById } from '@flowboard/representation';
import type { Logger } from '@flowboard/service-kit';
import { unrenderedStreamEvent, type PayloadRenderer, type StreamEvent } from '../stream';

/** The names a payload shows: the project's and the users' (membership's ResolveNames). */
export interface NameLookup {
  resolve(projectId: number, userIds: number[]): Promise<{ projectName: string; users: UsersById }>;
}

/** Name lookups of one rendered batch in flight at once. */
const LOOKUPS_AT_ONCE = 16;

/** Longest wait between two tries of a name lookup while membership does not answer. */
const MAX_RETRY_MS = 5_000;

/**
 * What an event of the stream is rendered from: the change as read, when it is to be rendered at once; else as
 * Kafka holds it (its JSON, read and checked once already), which takes less memory while the ring keeps it.
 */
type ChangeSource = { change: Envelope<ResourceChangedV1> } | { json: string };

/**
 * Records of the topic → the stream's events, each with the very payload a webhook gets (packages/representation's
 * renderChange), rendered once per replica. A record is read and checked when it arrives (`read`: its project, type
 * and offset place it in the ring); its payload is rendered (`render`, through `renderPayloads`) before it is
 * published when its project has a subscriber on the replica (the feed does that), else when a subscriber first
 * takes it: most changes are never taken on a given replica, and rendering costs a names lookup in membership and a
 * serialization. Names are looked up once per project per rendered batch. A type this release does not know (the
 * type is an open enum) and an unreadable record are skipped: the ring tolerates holes in offsets.
 *
 * While membership cannot say the names, rendering waits and tries again (the events come late, none is lost or
 * shown without its names); connections stay open and keep their heartbeats meanwhile.
 */
export class ChangeRenderer implements PayloadRenderer<ChangeSource> {
  constructor(
    private readonly names: NameLookup,
    private readonly logger: Logger,
    private readonly stopped: () => boolean,
  ) {}

  /**
   * The partition's records as events of the stream, to be rendered on first need (`renderPayloads`). Those of which
   * `soon(projectId)` says they will be rendered at once keep the change as read, so it is not read twice.
   */
  read(
    partition: number,
    records: readonly LogRecord[],
    soon: (projectId: number) => boolean,
  ): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const record of records) {
      const change = this.check(record);
      if (!change || !record.value) continue;
      const { projectId, type } = change.data;
      events.push(
        unrenderedStreamEvent({
          partition,
          offset: record.offset,
          projectId,
          type,
          // Else a copy: the record's bytes are a slice of the whole fetch, which the ring must not keep alive.
          source: soon(projectId) ? { change } : { json: record.value.toString('utf8') },
          bytes: record.value.length,
          renderer: this,
        }),
      );
    }
    return events;
  }

  async render(sources: readonly ChangeSource[]): Promise<string[]> {
    const changes = sources.map((source) => {
      if ('change' in source) return source.change;
      const read = readResourceChanged(source.json);
      if ('unknownType' in read) throw new Error(`a change of an unknown type was kept: ${read.unknownType}`);
      return read.event;
    });
    const byProject = new Map<number, Set<number>>();
    for (const event of changes) {
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
    return changes.map((event) => changePayloadJson(renderChange(event, names.get(event.data.projectId)!)));
  }

  private check(record: LogRecord): Envelope<ResourceChangedV1> | undefined {
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
