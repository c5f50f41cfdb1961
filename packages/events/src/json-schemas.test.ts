import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import {
  ALL_EVENTS,
  eventJsonSchemas,
  inviteCreatedV1,
  makeEvent,
  OPEN_ENUM,
  parseEvent,
  projectDeletedV1,
  resourceChangedV1,
  storyDeletedV1,
  type EventDefinition,
} from './index';
import type { z } from 'zod';

const dir = path.join(__dirname, '..', 'schemas');
const committed = (topic: string) => JSON.parse(readFileSync(path.join(dir, `${topic}.json`), 'utf8'));
// Formats are annotations here: zod writes a `pattern` beside each (uuid, date-time, email), which is the check.
const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
ajv.addKeyword({ keyword: OPEN_ENUM, schemaType: 'boolean' }); // a consumers' promise, an annotation to Ajv
const validator = (topic: string) =>
  ajv.getSchema(`urn:flowboard:event:${topic}`) ?? ajv.compile(committed(topic));

/** One valid message per topic, made as a producer makes it. */
const samples: Array<[EventDefinition<z.ZodType>, unknown]> = [
  [
    inviteCreatedV1,
    {
      inviteId: 7,
      projectId: 1,
      projectName: 'Sudden Valley',
      roleName: 'Members',
      email: 'maeby@funke.com',
      token: 'a'.repeat(32),
      senderName: 'Gob Bluth',
      expiresAt: '2026-12-06T10:00:00.000Z',
    },
  ],
  [
    projectDeletedV1,
    {
      projectId: 3,
      projectName: 'Sudden Valley',
      ownerId: 1,
      deletedBy: 1,
      deletedAt: '2026-12-06T10:00:00.000Z',
    },
  ],
  [
    resourceChangedV1,
    { projectId: 3, actorId: 0, type: 'story.moved', subject: 'story:12', resource: { id: 12, phase_id: 4 } },
  ],
  [storyDeletedV1, { projectId: 3, storyId: 12, deletedBy: 1, deletedAt: '2026-12-06T10:00:00.000Z' }],
];

describe('the JSON Schemas of the topics (packages/events/schemas)', () => {
  it('are what the code says: one file per topic, none stale (`npm run schemas -w @flowboard/events` writes them)', () => {
    const generated = eventJsonSchemas();
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(
      Object.keys(generated)
        .map((topic) => `${topic}.json`)
        .sort(),
    );
    for (const [topic, schema] of Object.entries(generated))
      expect({ topic, schema: committed(topic) }).toEqual({ topic, schema });
  });

  it('cover every event, and each sample covers one', () => {
    expect(ALL_EVENTS.map((e) => e.topic).sort()).toEqual(samples.map(([e]) => e.topic).sort());
  });

  it.each(samples.map(([definition, data]) => [definition.topic, definition, data] as const))(
    '%s: what makeEvent publishes is valid',
    (topic, definition, data) => {
      const message = JSON.parse(JSON.stringify(makeEvent(definition, 'test', data)));
      const validate = validator(topic);
      expect({ valid: validate(message), errors: validate.errors ?? null }).toEqual({
        valid: true,
        errors: null,
      });
    },
  );

  it.each(samples.map(([definition, data]) => [definition.topic, definition, data] as const))(
    '%s: refuses what parseEvent refuses (a missing field, a wrong type, a wrong envelope)',
    (topic, definition, data) => {
      const message = JSON.parse(JSON.stringify(makeEvent(definition, 'test', data)));
      const first = Object.keys(message.data)[0] as string;
      const { [first]: _dropped, ...missing } = message.data;
      const broken = [
        { ...message, data: missing },
        { ...message, data: { ...message.data, [first]: [] } },
        { ...message, version: 2 },
        { ...message, type: 'something.else' },
        { ...message, id: 'not-a-uuid' },
        { ...message, occurredAt: 'yesterday' },
      ];
      const validate = validator(topic);
      for (const m of broken) {
        expect(() => parseEvent(definition, JSON.stringify(m))).toThrow();
        expect({ m, valid: validate(m) }).toEqual({ m, valid: false });
      }
    },
  );
});
