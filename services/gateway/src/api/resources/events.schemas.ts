import { arrayOf, int, ref, resource, str, type ResourceSchemas } from '../schema';

/** A project's change stream (events.routes.ts): the long-poll answer and its events. */

const position = (description: string) => ({
  type: 'string',
  pattern: '^1-(0|[1-9a-z][0-9a-z]*)-(0|[1-9a-z][0-9a-z]*)$',
  maxLength: 32,
  description,
  examples: ['1-3-1f4'],
});

export const eventSchemas: ResourceSchemas = {
  responses: {
    ChangeEvent: resource(
      'event',
      ['id', 'event', 'data'],
      {
        id: position(
          "The change's position: continue after it with `after=` (or `Last-Event-ID`). Opaque: compare nothing, " +
            'store it as it is.',
        ),
        event: str(
          "The change's type, as webhooks name it (`story.created`, `story.moved`, `task.updated`...). Types may " +
            'be added: skip one you do not know.',
        ),
        data: ref('ChangePayload'),
      },
      { description: 'Flowboard addition: one change of a project, as its webhooks receive it.' },
    ),
    ChangePayload: {
      type: 'object',
      xml: { name: 'data' },
      required: ['id', 'type', 'timestamp', 'project', 'actor', 'data'],
      properties: {
        id: str("The event's id: the same as a webhook's `webhook-id` for this change."),
        type: str("The change's type (as `event`)."),
        timestamp: str('When the change was made (ISO 8601, UTC).'),
        project: ref('NamedRef'),
        actor: {
          type: 'object',
          description:
            'The user who made the change, as the API embeds users, with `apiKey: {id, name}`, the API key it ' +
            'was made with (its name as it was then); `{id: 0}` for a system action.',
        },
        story: {
          type: 'object',
          required: ['id'],
          properties: { id: int() },
          description:
            'The story, for a change to one of its tasks, comments, tags or attachments; else absent.',
        },
        data: {
          type: 'object',
          description:
            'The resource as the API shows it after the change (before it, for a deletion): a story, task, ' +
            'comment, attachment, tag, member, role or invite. Tokens are left out.',
        },
      },
      description:
        "A change's webhook payload. In XML its properties are elements in alphabetical order, arrays wrapped " +
        '(`tags/tag`, `members/user`...).',
    },
    EventBatch: resource(
      'stream',
      ['events', 'position'],
      {
        events: arrayOf(
          ref('ChangeEvent'),
          'The changes after the start position, oldest first; at most `limit`.',
        ),
        position: position(
          'Where the next request continues (`after=`): after the last change here, or the start position when ' +
            'there is none.',
        ),
      },
      {
        description:
          'Flowboard addition: a long-poll answer of the change stream. In XML `<stream>` with `<events><event>` ' +
          'items and `<position>`.',
      },
    ),
  },
};
