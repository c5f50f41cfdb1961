import type { boards } from '@flowboard/proto';
import { formatOptionalTimestamp, formatTimestamp } from '../../shared/domain/timestamp';
import type { TaskRecord } from './ports';

/**
 * TaskRecord → Task message (the gRPC answer and the resource of task events); an incomplete task has no finish
 * time ("") and no finisher (0).
 */
export const toTaskMessage = (task: TaskRecord): boards.Task => ({
  id: task.id,
  text: task.text,
  status: task.status,
  create_time: formatTimestamp(task.createdAt),
  finish_time: formatOptionalTimestamp(task.finishedAt),
  finished_by: task.finishedBy ?? 0,
  version: task.version,
});
