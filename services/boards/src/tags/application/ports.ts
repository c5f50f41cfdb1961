import type { KeysetPage, KeysetWindow } from '../../shared/application/list-window';

/**
 * What the tag use cases need from the database: tags/db implements it over PostgreSQL, the unit
 * tests with fakes.
 */

export interface TagRecord {
  id: number;
  projectId: number;
  name: string;
  /** Kept by the database (migration 0009): 1 when created, +1 with each rename. */
  version: number;
}

/** A story carrying a tag, as the tag's `stories` enrichment shows it. */
export interface TaggedStory {
  tagId: number;
  storyId: number;
  text: string;
}

export interface TagRepository {
  /** A page by id and the project's tag count. */
  list(projectId: number, offset: number, limit: number): Promise<{ tags: TagRecord[]; total: number }>;
  /** A keyset page by id and the project's tag count. */
  listById(projectId: number, window: KeysetWindow): Promise<KeysetPage<{ tags: TagRecord[] }>>;
  find(projectId: number, tagId: number): Promise<TagRecord | undefined>;
  /** By name, ignoring case. */
  findByName(projectId: number, name: string): Promise<TagRecord | undefined>;
  findByIds(projectId: number, tagIds: readonly number[]): Promise<TagRecord[]>;
  /**
   * The tag, its row locked (FOR NO KEY UPDATE) until the transaction ends; undefined when there is no such tag.
   */
  findForUpdate(projectId: number, tagId: number): Promise<TagRecord | undefined>;
  /** Inserts a tag; a name taken (ignoring case) → Conflict, no board → NotFound. */
  insert(projectId: number, name: string): Promise<TagRecord>;
  /**
   * The tag with this name (ignoring case), created when there is none (`created`); safe against concurrent creates.
   */
  ensure(projectId: number, name: string): Promise<{ tag: TagRecord; created: boolean }>;
  /** Undefined when there is no such tag; a name taken by another tag → Conflict. */
  rename(projectId: number, tagId: number, name: string): Promise<TagRecord | undefined>;
  /**
   * Deletes the tag with its links; answers it as it was and the stories that carried it, or undefined when there
   * was no such tag. No link can be added while it goes, so the stories are exactly those it came off.
   */
  delete(projectId: number, tagId: number): Promise<{ tag: TagRecord; storyIds: number[] } | undefined>;
  /** Locks the story row (FOR NO KEY UPDATE) until the transaction ends; false when there is no such story. */
  lockStory(projectId: number, storyId: number): Promise<boolean>;
  /** Which of these story ids exist in the project. */
  existingStoryIds(projectId: number, storyIds: readonly number[]): Promise<number[]>;
  /** The ids of the stories carrying the tag. */
  storyIds(projectId: number, tagId: number): Promise<number[]>;
  /** `{id, text}` of the stories carrying each of these tags, by tag, then in board order. */
  storiesOfTags(projectId: number, tagIds: readonly number[]): Promise<TaggedStory[]>;
  /** A page of the story's tags by id, and their count. */
  listForStory(
    projectId: number,
    storyId: number,
    offset: number,
    limit: number,
  ): Promise<{ tags: TagRecord[]; total: number }>;
  /** A keyset page of the story's tags by id, and their count. */
  listForStoryById(
    projectId: number,
    storyId: number,
    window: KeysetWindow,
  ): Promise<KeysetPage<{ tags: TagRecord[] }>>;
  /** The tags of these stories, by story then tag id. */
  listForStories(
    projectId: number,
    storyIds: readonly number[],
  ): Promise<Array<{ storyId: number; tag: TagRecord }>>;
  /** Puts the tags on the story (already there: no-op); answers the ids of the tags newly put on, ascending. */
  link(projectId: number, storyId: number, tagIds: readonly number[]): Promise<number[]>;
  /** Makes `tagIds` exactly the story's tags; answers the ids of the tags put on and the tags taken off, by id. */
  replaceStoryTags(
    projectId: number,
    storyId: number,
    tagIds: readonly number[],
  ): Promise<{ added: number[]; removed: TagRecord[] }>;
  /** Puts the tag on the stories (already there: no-op); answers the ids of the stories newly tagged, ascending. */
  linkStories(projectId: number, tagId: number, storyIds: readonly number[]): Promise<number[]>;
  /** Makes `storyIds` exactly the stories carrying the tag; answers the ids of those tagged and untagged, ascending. */
  replaceTagStories(
    projectId: number,
    tagId: number,
    storyIds: readonly number[],
  ): Promise<{ added: number[]; removed: number[] }>;
  /** False when the story did not carry the tag. */
  unlink(projectId: number, storyId: number, tagId: number): Promise<boolean>;
}
