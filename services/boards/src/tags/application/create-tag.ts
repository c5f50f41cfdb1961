import { parseTagName } from '../domain/tags';
import type { TagRecord } from './ports';
import { projectKey } from './tag-support';
import type { TagsStore } from './tags-store';

export type CreateTag = (projectId: number, name: string) => Promise<TagRecord>;

/** A new tag; the name is trimmed and must be unique in the project ignoring case (else 409). */
export function makeCreateTag(store: TagsStore): CreateTag {
  return async (projectId, name) => store.tags.insert(projectKey(projectId), parseTagName(name));
}
