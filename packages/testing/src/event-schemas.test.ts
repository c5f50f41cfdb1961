import { makeEvent, storyDeletedV1 } from '@flowboard/events';
import { assertMatchesTopicSchema, hasTopicSchema } from './event-schemas';

describe('assertMatchesTopicSchema (what the shared outbox and Kafka readers check)', () => {
  const event = makeEvent(storyDeletedV1, 'boards', {
    projectId: 3,
    storyId: 12,
    deletedBy: 1,
    deletedAt: '2026-12-06T10:00:00.000Z',
  });

  it('passes a message as its producer publishes it, parsed or as text', () => {
    expect(() => assertMatchesTopicSchema(storyDeletedV1.topic, event)).not.toThrow();
    expect(() =>
      assertMatchesTopicSchema(storyDeletedV1.topic, Buffer.from(JSON.stringify(event))),
    ).not.toThrow();
  });

  it('names the topic and the violation of a message that breaks the schema', () => {
    const { storyId: _gone, ...data } = event.data;
    expect(() => assertMatchesTopicSchema(storyDeletedV1.topic, { ...event, data })).toThrow(
      /a message on boards\.story-deleted\.v1 breaks its schema: \/data must have required property 'storyId'/,
    );
    expect(() =>
      assertMatchesTopicSchema(storyDeletedV1.topic, { ...event, data: { ...event.data, extra: 1 } }),
    ).toThrow(/must NOT have additional properties/);
  });

  it('refuses a topic without a schema', () => {
    expect(hasTopicSchema('boards.story-deleted.v1')).toBe(true);
    expect(hasTopicSchema('boards-dlq')).toBe(false);
    expect(() => assertMatchesTopicSchema('boards.story-archived.v1', event)).toThrow(
      /no JSON Schema for topic/,
    );
  });
});
