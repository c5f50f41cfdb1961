import { parseTagName } from '../domain/tags';
import type { BoardsStore, TagRecord } from './ports';
import { projectKey } from './tag-support';

export type CreateTag = (projectId: number, name: string) => Promise<TagRecord>;

/** A new tag; the name is trimmed and must be unique in the project ignoring case (else 409). */
export function makeCreateTag(store: BoardsStore): CreateTag {
  return async (projectId, name) => store.tags.insert(projectKey(projectId), parseTagName(name));
}
