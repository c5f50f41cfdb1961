import { DomainError } from '@flowboard/service-kit';
import type { Fields } from '../../wire/body';
import type { Call } from '../call';
import type { RouteDeps } from './deps';

/**
 * The body of a write on a story's sub-resource. A body that cannot be read is 400, but only once the story is
 * known to exist: a missing story is 404 first (docs/compat.md §3.3 order).
 */
export async function storyChildBody(
  boards: RouteDeps['boards'],
  call: Call,
  shape: 'object' | 'array',
): Promise<Fields | unknown[]> {
  try {
    const body = await call.body();
    return shape === 'object' ? body.object() : body.array();
  } catch (err) {
    await boards.getStory({ project_id: call.project.projectId, story_id: call.id('storyId') });
    throw err;
  }
}

/** An id from an array item: `12`, `"12"` or `{id: 12}` (XML: `<task><id>12</id></task>`). */
export function itemId(item: unknown, what: string): number {
  const raw = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Fields).id : item;
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new DomainError('InvalidArgument', `Each item must be a ${what} id or an object with 'id'.`, {
      problem: 'invalid-body',
    });
  }
  return n;
}
