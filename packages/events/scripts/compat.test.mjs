// Tests of the topics' compatibility check (compat.mjs), on the real schemas: `node --test packages/events/scripts/*.test.mjs`
// (scripts/contract-check.sh runs them in npm test's `contracts` phase).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { OPEN_ENUM, compareDirs, opened, topicBreaks } from './compat.mjs';

const schemas = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'schemas');
const read = (topic) => JSON.parse(readFileSync(path.join(schemas, `${topic}.json`), 'utf8'));
const INVITE = 'membership.invite-created.v1';
const CHANGED = 'flowboard.resource-changed.v1';
/** The schema without its `pattern`s: the same shape, and jsoncompat answers in a tenth of the time. */
const withoutPatterns = (schema) =>
  JSON.parse(JSON.stringify(schema, (key, value) => (key === 'pattern' ? undefined : value)));
/** The released schema and a copy changed by `edit(data schema, whole schema)`. */
function changed(topic, edit) {
  const released = withoutPatterns(read(topic));
  const current = structuredClone(released);
  edit(current.properties.data, current);
  return topicBreaks(released, current);
}
const expectBreak = (breaks, ...fragments) => {
  assert.ok(breaks.length > 0, 'expected a break');
  for (const f of fragments)
    assert.ok(
      breaks.some((b) => b.includes(f)),
      `no break mentions ${f}: ${breaks}`,
    );
};
const FORWARD = 'the released consumers would refuse';
const BACKWARD = 'new consumers would refuse';

describe('event schema compatibility (compat.mjs)', () => {
  it('an unchanged schema is compatible, for every topic', () => {
    for (const file of readdirSync(schemas)) {
      const topic = file.replace(/\.json$/, '');
      assert.deepEqual(topicBreaks(read(topic), read(topic)), [], topic);
    }
  });

  it('opened() drops only additionalProperties: false', () => {
    const s = {
      type: 'object',
      additionalProperties: false,
      properties: { r: { additionalProperties: {} } },
    };
    assert.deepEqual(opened(s), { type: 'object', properties: { r: { additionalProperties: {} } } });
  });

  it('adding an optional property is compatible (released consumers ignore it)', () => {
    assert.deepEqual(
      changed(INVITE, (data) => (data.properties.locale = { type: 'string' })),
      [],
    );
  });

  it('removing a required property breaks the released consumers', () => {
    expectBreak(
      changed(INVITE, (data) => {
        delete data.properties.email;
        data.required = data.required.filter((r) => r !== 'email');
      }),
      'data.email: removed (it was required)',
      FORWARD,
    );
  });

  it('making a property optional breaks the released consumers', () => {
    expectBreak(
      changed(INVITE, (data) => (data.required = data.required.filter((r) => r !== 'token'))),
      'data.token: no longer required',
    );
  });

  it('adding a required property breaks new consumers reading what released producers sent', () => {
    expectBreak(
      changed(INVITE, (data) => {
        data.properties.locale = { type: 'string' };
        data.required.push('locale');
      }),
      'data.locale: added as required',
      BACKWARD,
    );
  });

  it('changing a type breaks both ways', () => {
    expectBreak(
      changed(INVITE, (data) => (data.properties.inviteId = { type: 'string' })),
      'data.inviteId: changed from {"type":"integer"',
      FORWARD,
      BACKWARD,
    );
  });

  it('an enum value added breaks the released consumers; one removed breaks new consumers', () => {
    // The event type as a plain (closed) enum, as it was released before the open-enum marker.
    const released = withoutPatterns(read(CHANGED));
    delete released.properties.data.properties.type[OPEN_ENUM];
    const closedChange = (edit) => {
      const current = structuredClone(released);
      edit(current.properties.data);
      return topicBreaks(released, current);
    };
    expectBreak(
      closedChange((data) => data.properties.type.enum.push('story.archived')),
      'data.type: enum values added ["story.archived"]',
      FORWARD,
    );
    expectBreak(
      closedChange((data) => (data.properties.type.enum = data.properties.type.enum.slice(1))),
      'data.type: enum values removed ["story.created"]',
      BACKWARD,
    );
  });

  it('an open enum (released with its marker) takes new values; removing one still breaks', () => {
    assert.equal(read(CHANGED).properties.data.properties.type[OPEN_ENUM], true);
    assert.deepEqual(
      changed(CHANGED, (data) => data.properties.type.enum.push('board.archived')),
      [],
    );
    expectBreak(
      changed(CHANGED, (data) => (data.properties.type.enum = data.properties.type.enum.slice(1))),
      'data.type: enum values removed ["story.created"]',
      BACKWARD,
    );
  });

  it('marking a released enum open is compatible; values added in the same change are not', () => {
    const released = withoutPatterns(read(CHANGED));
    delete released.properties.data.properties.type[OPEN_ENUM];
    const marked = structuredClone(released);
    marked.properties.data.properties.type[OPEN_ENUM] = true;
    assert.deepEqual(topicBreaks(released, marked), []);
    const markedAndAdded = structuredClone(marked);
    markedAndAdded.properties.data.properties.type.enum.push('board.archived');
    expectBreak(topicBreaks(released, markedAndAdded), 'enum values added ["board.archived"]', FORWARD);
  });

  it('a narrowed constraint breaks new consumers; a widened one breaks the released consumers', () => {
    expectBreak(
      changed(INVITE, (data) => (data.properties.token.minLength = 10)),
      'data.token: changed',
      BACKWARD,
    );
    expectBreak(
      changed(INVITE, (data) => {
        delete data.properties.projectId.exclusiveMinimum;
        data.properties.projectId.minimum = 0;
      }),
      'data.projectId: changed',
      FORWARD,
    );
  });

  it('a changed envelope (another version in the message) breaks', () => {
    expectBreak(
      changed(INVITE, (_data, whole) => (whole.properties.version.const = 2)),
      'version: changed',
    );
  });

  it('a topic whose schema is gone breaks; a new topic is fine', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compat-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const released = path.join(dir, 'released');
    const current = path.join(dir, 'current');
    cpSync(schemas, released, { recursive: true });
    cpSync(schemas, current, { recursive: true });
    assert.equal(compareDirs(released, current).broken, 0);
    rmSync(path.join(current, `${INVITE}.json`));
    writeFileSync(
      path.join(current, 'membership.invite-created.v2.json'),
      readFileSync(path.join(released, `${INVITE}.json`)),
    );
    const { lines, broken } = compareDirs(released, current);
    assert.equal(broken, 1);
    assert.ok(
      lines.includes(
        `BREAK ${INVITE}: the topic's schema is gone: its consumers would wait for events nobody sends`,
      ),
    );
    assert.ok(lines.includes('new   membership.invite-created.v2 (not released yet)'));
  });
});

describe('annotations', () => {
  it('a property named like an annotation keyword is still compared', () => {
    const released = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
    const current = { type: 'object', properties: { title: { type: 'integer' } }, required: ['title'] };
    expectBreak(topicBreaks(released, current), 'title: changed');
    assert.deepEqual(topicBreaks(released, { ...released, description: 'only words changed' }), []);
  });
});
