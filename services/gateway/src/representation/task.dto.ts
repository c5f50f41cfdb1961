import type { boards } from '@flowboard/proto';
import type { UsersById } from '../cache';
import type { Dto } from './dto';
import { userRefDto } from './user.dto';

/** A user the batch did not return (deleted since) keeps its id, so the shape stays stable. */
export const embeddedUser = (id: number, users: UsersById): Dto => {
  const user = users.get(id);
  return user ? userRefDto(user) : { id, name: '', userName: '', email: '' };
};

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
