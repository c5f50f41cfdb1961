import {
  body,
  int,
  nonBlank,
  pageSchema,
  ref,
  resource,
  str,
  timestamp,
  xmlArray,
  type ResourceSchemas,
} from '../schema';

/** The tasks of a story (tasks.routes.ts). */
export const taskSchemas: ResourceSchemas = {
  responses: {
    Task: resource('task', ['id', 'text', 'status', 'createTime'], {
      id: int(),
      text: str(),
      status: { type: 'string', enum: ['incomplete', 'complete'] },
      createTime: timestamp,
      finishTime: { ...timestamp, description: 'While complete.' },
      finishedBy: { ...ref('UserRef'), description: 'While complete.' },
    }),
  },
  pages: { TaskPage: pageSchema('Task', 'tasks') },
  requests: {
    TaskCreate: body(
      'task',
      { text: nonBlank(2000), status: { type: 'string', enum: ['incomplete', 'complete'] } },
      ['text'],
    ),
    TaskUpdate: body('task', {
      text: nonBlank(2000),
      status: { type: 'string', enum: ['incomplete', 'complete'] },
    }),
    TaskOrder: xmlArray(ref('ItemReference'), 'tasks', 'task', 'Every task exactly once.'),
  },
};
