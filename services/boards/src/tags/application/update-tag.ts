import { parseTagName } from '../domain/tags';
import type { TagRecord } from './ports';
import { projectKey, resolvePathTag, tagNotFound } from './tag-support';
import type { TagsStore } from './tags-store';

export interface UpdateTagCommand {
  projectId: number;
  tag: string;
  /** Undefined: the tag is answered unchanged. */
  name?: string;
}

export type UpdateTag = (command: UpdateTagCommand) => Promise<TagRecord>;

/** Renames a tag; its links are by id, so it stays on its stories. A name taken by another tag → 409. */
export function makeUpdateTag(store: TagsStore): UpdateTag {
  return async (command) => {
    const projectId = projectKey(command.projectId);
    const tag = await resolvePathTag(store, projectId, command.tag);
    if (command.name === undefined) return tag;
    const renamed = await store.tags.rename(projectId, tag.id, parseTagName(command.name));
    if (!renamed) throw tagNotFound(); // deleted meanwhile
    return renamed;
  };
}
