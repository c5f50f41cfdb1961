import { DomainError } from '@flowboard/service-kit';
import type { boards } from '@flowboard/proto';
import { keysetOf, keysetPageDto, pageOnly, type Paging } from '../../wire/page';
import { taskDto, taskUserIds } from '@flowboard/representation';
import type { Fields } from '../../wire/body';
import type { Call } from '../call';
import type { EnrichmentVocabulary } from '../../wire/enrichments';
import { optionalString } from '../../wire/fields';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { itemId, storyChildBody } from './story-children';
import { del, get, post, put, resourceOperations } from '../operation';
import { S } from './paths';
import { servableFromCache } from './story-views';

/** Tasks have no enrichments; `with=everything` is accepted, anything else is 400. */
const TASK_ENRICHMENTS: EnrichmentVocabulary = { names: [] };

/**
 * `S/tasks` (spec "Tasks", docs/compat.md §5.6): by position; finishers resolved in one BatchGetUsers call. The GET
 * pages by cursor too (README "Sync: cursors and updatedSince"), in id order; the reorder answers its page by
 * `page` only (`cursor` there is a 400 before anything is written).
 */
export function taskHandlers({ boards, users: directory }: RouteDeps) {
  const ids = (call: Call) => ({ project_id: call.project.projectId, story_id: call.id('storyId') });

  async function taskPage(
    tasks: boards.Task__Output[],
    total: number,
    paging: Paging,
    keyset?: boards.KeysetPage__Output | null,
  ) {
    const users = await directory.resolve(taskUserIds(tasks));
    const dtos = tasks.map((t) => taskDto(t, users));
    return page('task', keysetPageDto(dtos, paging, total, keyset, 'boards'));
  }

  async function taskReply(task: boards.Task__Output | null): Promise<Reply> {
    if (!task) throw new DomainError('Internal', 'boards returned no task');
    const users = await directory.resolve(taskUserIds([task]));
    return resource('task', taskDto(task, users), task.version);
  }

  return {
    /** `GET S/tasks` (E, F, Pg): `where` is accepted but every property → 400 (boards checks it). */
    async list(call: Call): Promise<Reply> {
      call.enrichments(TASK_ENRICHMENTS);
      const paging = call.paging();
      const { tasks, total_items, keyset } = await boards.listTasks({
        ...ids(call),
        where: call.query.get('where') ?? '',
        page: paging.page,
        page_size: paging.pageSize,
        ...keysetOf(paging),
      });
      return taskPage(tasks, total_items, paging, keyset);
    },

    /** `POST S/tasks`: `text` (required), `status` (default incomplete); appended. */
    async create(call: Call): Promise<Reply> {
      const fields = (await storyChildBody(boards, call, 'object')) as Fields;
      call.enrichments(TASK_ENRICHMENTS);
      const { task } = await boards.createTask({
        ...ids(call),
        text: optionalString(fields, 'text') ?? '',
        status: optionalString(fields, 'status') ?? '',
      });
      return taskReply(task);
    },

    /** `PUT S/tasks`: every task exactly once (ids or `{id}`), in the new order; answers the page. */
    async reorder(call: Call): Promise<Reply> {
      const items = (await storyChildBody(boards, call, 'array')) as unknown[];
      call.enrichments(TASK_ENRICHMENTS);
      const paging = pageOnly(
        call.paging(),
        "A reorder answers a page of the tasks by number (walk them with GET and 'cursor')",
      );
      const { tasks, total_items } = await boards.reorderTasks({
        ...ids(call),
        task_ids: items.map((item) => itemId(item, 'task')),
        page: paging.page,
        page_size: paging.pageSize,
      });
      return taskPage(tasks, total_items, paging);
    },

    async get(call: Call): Promise<Reply> {
      call.enrichments(TASK_ENRICHMENTS);
      const { task } = await boards.getTask({
        project_id: call.project.projectId,
        story_id: call.id('storyId'),
        task_id: call.id('taskId'),
      });
      return taskReply(task);
    },

    /** `PUT S/tasks/{id}`: any subset of `text`, `status`; other fields are ignored (docs/compat.md §1.4). */
    async update(call: Call): Promise<Reply> {
      const fields = (await storyChildBody(boards, call, 'object')) as Fields;
      call.enrichments(TASK_ENRICHMENTS);
      const update_mask: string[] = [];
      const text = optionalString(fields, 'text');
      if (text !== undefined) update_mask.push('text');
      const status = optionalString(fields, 'status');
      if (status !== undefined) update_mask.push('status');
      const { task } = await boards.updateTask({
        ...ids(call),
        task_id: call.id('taskId'),
        expected_version: call.expectedVersion(),
        update_mask,
        text: text ?? '',
        status: status ?? '',
      });
      return taskReply(task);
    },

    async remove(call: Call): Promise<Reply> {
      await boards.deleteTask({
        project_id: call.project.projectId,
        story_id: call.id('storyId'),
        task_id: call.id('taskId'),
        expected_version: call.expectedVersion(),
      });
      return empty();
    },
  };
}

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const taskOperations = resourceOperations('Tasks', 'stories', taskHandlers, [
  get(`${S}/tasks`, 'listTasks', 'List tasks', {
    cursor: true,
    access: 'Read',
    cached: servableFromCache,
    ok: { page: 'Task' },
    handler: 'list',
  }),
  post(`${S}/tasks`, 'createTask', 'Create a task', {
    access: 'ReadWrite',
    body: 'TaskCreate',
    ok: { one: 'Task' },
    handler: 'create',
  }),
  put(`${S}/tasks`, 'reorderTasks', 'Reorder tasks', {
    access: 'ReadWrite',
    body: 'TaskOrder',
    ok: { page: 'Task' },
    handler: 'reorder',
  }),
  get(`${S}/tasks/:taskId`, 'getTask', 'Get a task', {
    access: 'Read',
    conditional: true,
    cached: servableFromCache,
    ok: { one: 'Task' },
    handler: 'get',
  }),
  put(`${S}/tasks/:taskId`, 'updateTask', 'Update a task', {
    access: 'ReadWrite',
    conditional: true,
    body: 'TaskUpdate',
    ok: { one: 'Task' },
    handler: 'update',
  }),
  del(`${S}/tasks/:taskId`, 'deleteTask', 'Delete a task', {
    access: 'ReadWrite',
    conditional: true,
    ok: 'empty',
    handler: 'remove',
  }),
]);
