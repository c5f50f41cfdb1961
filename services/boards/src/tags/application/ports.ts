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
  find(projectId: number, tagId: number): Promise<TagRecord | undefined>;
  /** By name, ignoring case. */
  findByName(projectId: number, name: string): Promise<TagRecord | undefined>;
  findByIds(projectId: number, tagIds: readonly number[]): Promise<TagRecord[]>;
  /** Locks the tag row (FOR NO KEY UPDATE) until the transaction ends; false when there is no such tag. */
  lock(projectId: number, tagId: number): Promise<boolean>;
  /** The tag, locked as by `lock`; undefined when there is no such tag. */
  findForUpdate(projectId: number, tagId: number): Promise<TagRecord | undefined>;
  /** Inserts a tag; a name taken (ignoring case) → Conflict, no board → NotFound. */
  insert(projectId: number, name: string): Promise<TagRecord>;
  /** The tag with this name (ignoring case), created when there is none; safe against concurrent creates. */
  ensure(projectId: number, name: string): Promise<TagRecord>;
  /** Undefined when there is no such tag; a name taken by another tag → Conflict. */
  rename(projectId: number, tagId: number, name: string): Promise<TagRecord | undefined>;
  /** False when there was no such tag. Its links go with it (ON DELETE CASCADE). */
  delete(projectId: number, tagId: number): Promise<boolean>;
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
  /** The tags of these stories, by story then tag id. */
  listForStories(
    projectId: number,
    storyIds: readonly number[],
  ): Promise<Array<{ storyId: number; tag: TagRecord }>>;
  /** Puts the tags on the story (already there: no-op). */
  link(projectId: number, storyId: number, tagIds: readonly number[]): Promise<void>;
  /** Makes `tagIds` exactly the story's tags. */
  replaceStoryTags(projectId: number, storyId: number, tagIds: readonly number[]): Promise<void>;
  /** Puts the tag on the stories (already there: no-op). */
  linkStories(projectId: number, tagId: number, storyIds: readonly number[]): Promise<void>;
  /** Makes `storyIds` exactly the stories carrying the tag. */
  replaceTagStories(projectId: number, tagId: number, storyIds: readonly number[]): Promise<void>;
  /** False when the story did not carry the tag. */
  unlink(projectId: number, storyId: number, tagId: number): Promise<boolean>;
}
