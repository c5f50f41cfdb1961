import { CONTENT_TYPES, type Format } from './negotiate';
import type { RenderedBody } from './respond';
import { jsonElement, XML_DECLARATION } from './xml';

/** One change of a project's change stream as a long-poll answer carries it. */
export interface BatchEvent {
  /** Its position: where a stream resumes after it (`after=`, `Last-Event-ID`). */
  id: string;
  /** Its webhook event name (`story.created`...). */
  event: string;
  /** Its webhook payload, as JSON text of an object (the change stream keeps it serialized once, shared). */
  payload: string;
}

/** The long-poll document's root element in XML. */
export const EVENT_BATCH_ROOT = 'stream';

/**
 * The long-poll answer of the change stream: `{"events":[{"id","event","data"}],"position"}`, `data` being the
 * payload object. JSON splices each payload's text in as it is (it is JSON already: no parse, no copy per format);
 * XML is `<stream><events><event><data>…</data><event>…</event><id>…</id></event></events><position>…</position>
 * </stream>`, the payload written as the API's XML of an object (xml.ts `jsonElement`), children in alphabetical
 * order, an empty batch `<events />`. `position` is where the next request continues: after the last event, or the
 * start when there is none.
 */
export function renderEventBatch(
  format: Format,
  events: readonly BatchEvent[],
  position: string,
): RenderedBody {
  const body =
    format === 'xml'
      ? XML_DECLARATION +
        jsonElement(EVENT_BATCH_ROOT, {
          events: events.map((e) => ({ id: e.id, event: e.event, data: JSON.parse(e.payload) as unknown })),
          position,
        })
      : `{"events":[${events
          .map((e) => `{"id":${JSON.stringify(e.id)},"event":${JSON.stringify(e.event)},"data":${e.payload}}`)
          .join(',')}],"position":${JSON.stringify(position)}}`;
  return { contentType: CONTENT_TYPES[format], body };
}
