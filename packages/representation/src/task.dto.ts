import type { boards } from '@flowboard/proto';
import type { Dto } from './dto';
import { embeddedUser, type UsersById } from './user.dto';

/** Task (spec "Task"): `id, text, status, createTime`, then `finishTime` and `finishedBy` while complete. */
export const taskDto = (task: boards.Task__Output, users: UsersById): Dto => ({
  id: task.id,
  text: task.text,
  status: task.status,
  createTime: task.create_time,
  finishTime: task.finish_time || undefined,
  finishedBy: task.finished_by ? embeddedUser(task.finished_by, users) : undefined,
});

/** The user ids a set of tasks refers to (finishers), for the response's one `resolveUsers` call. */
export const taskUserIds = (tasks: boards.Task__Output[]): number[] => tasks.map((t) => t.finished_by);
