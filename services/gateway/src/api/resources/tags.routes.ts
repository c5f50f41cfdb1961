import { DomainError } from '@flowboard/service-kit';
import type { boards } from '@flowboard/proto';
import { type Dto, storySummaryDto, tagDto } from '@flowboard/representation';
import { keysetOf, keysetPageDto, pageOnly, type Paging } from '../../wire/page';
import type { Fields, RequestBody } from '../../wire/body';
import type { Call } from '../call';
import type { EnrichmentVocabulary } from '../../wire/enrichments';
import { requiredString } from '../../wire/fields';
import { empty, page, resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { itemId } from './story-children';
import { STORY_ENRICHMENTS, filterUsers, servableFromCache, storyDtosFor } from './story-views';
import { singleItem, tagRef } from './tag-refs';
import { del, get, post, put, resourceOperations } from '../operation';
import { P, S } from './paths';

/**
 * `with=stories` on tags: `{id, text}` of the stories carrying each tag (spec "Tag", docs/compat.md §4.3).
 */
export const TAG_ENRICHMENTS: EnrichmentVocabulary = { names: ['stories'] };

/**
 * Tags (spec "Tags", docs/compat.md §5.5): `P/tags...` and the story-scoped `S/tags...`. `{tag}` is an id or
 * a URL-encoded name (the router has decoded it); boards resolves it, trying a number as an id first. Tag
 * pages are by id; story pages in board order. Enrichments cost one batched boards call per response. The GETs
 * page by cursor too (README "Sync: cursors and updatedSince"), in id order; the writes that answer a page answer
 * it by `page` only (`cursor` there is a 400 before anything is written).
 */
export function tagHandlers(deps: RouteDeps) {
  const { boards, membership } = deps;
  const pathTag = (call: Call) => call.text('tag');

  async function tagDtos(
    call: Call,
    tags: boards.Tag__Output[],
    enrich: ReadonlySet<string>,
  ): Promise<Dto[]> {
    if (!enrich.has('stories')) return tags.map(tagDto);
    const batch =
      tags.length > 0
        ? await boards.batchGetTagStories({
            project_id: call.project.projectId,
            tag_ids: tags.map((t) => t.id),
          })
        : { tags: [] };
    const byTag = new Map(batch.tags.map((t) => [t.tag_id, t.stories]));
    return tags.map((t) => ({ ...tagDto(t), stories: (byTag.get(t.id) ?? []).map(storySummaryDto) }));
  }

  async function tagReply(call: Call, tag: boards.Tag__Output | null, enrich: ReadonlySet<string>) {
    if (!tag) throw new DomainError('Internal', 'boards returned no tag');
    const [dto] = await tagDtos(call, [tag], enrich);
    return resource('tag', dto as Dto, tag.version);
  }

  /** A page of tags; by cursor when `paging` has one (a List call asked with `keysetOf(paging)`). */
  async function tagsPage(
    call: Call,
    result: { tags: boards.Tag__Output[]; total_items: number; keyset?: boards.KeysetPage__Output | null },
    paging: Paging,
    enrich: ReadonlySet<string>,
  ) {
    const dtos = await tagDtos(call, result.tags, enrich);
    return page('tag', keysetPageDto(dtos, paging, result.total_items, result.keyset, 'boards'));
  }

  /** A page of stories; by cursor when `paging` has one (a List call asked with `keysetOf(paging)`). */
  async function storiesPage(
    call: Call,
    result: {
      stories: boards.Story__Output[];
      total_items: number;
      keyset?: boards.KeysetPage__Output | null;
    },
    paging: Paging,
    enrich: ReadonlySet<string>,
  ) {
    const dtos = await storyDtosFor(deps, call, result.stories, enrich);
    return page('story', keysetPageDto(dtos, paging, result.total_items, result.keyset, 'boards'));
  }

  /** A write's answer, a page of its list, is by `page` only: `cursor` is refused before the write. */
  const writePaging = (call: Call) =>
    pageOnly(
      call.paging(),
      "A write answers a page of its list by number (walk the list with GET and 'cursor')",
    );

  /**
   * Reads the body as `read` wants it. A bad body is 400 only once the path's tag (or story) is known to exist:
   * a missing one is 404 first (docs/compat.md §3.3 order).
   */
  async function bodyAfter<T>(call: Call, exists: () => Promise<unknown>, read: (body: RequestBody) => T) {
    try {
      return read(await call.body());
    } catch (err) {
      await exists();
      throw err;
    }
  }
  const tagExists = (call: Call) => () =>
    boards.getTag({ project_id: call.project.projectId, tag: pathTag(call) });
  const storyExists = (call: Call) => () =>
    boards.getStory({ project_id: call.project.projectId, story_id: call.id('storyId') });

  return {
    /** `GET P/tags` (E, F, Pg): `where` is accepted, but every property → 400 (boards checks it). */
    async list(call: Call): Promise<Reply> {
      const enrich = call.enrichments(TAG_ENRICHMENTS);
      const paging = call.paging();
      const result = await boards.listTags({
        project_id: call.project.projectId,
        where: call.query.get('where') ?? '',
        page: paging.page,
        page_size: paging.pageSize,
        ...keysetOf(paging),
      });
      return tagsPage(call, result, paging, enrich);
    },

    /** `POST P/tags`: `name` required; a name taken in the project (ignoring case) → 409. */
    async create(call: Call): Promise<Reply> {
      const enrich = call.enrichments(TAG_ENRICHMENTS);
      const name = requiredString((await call.body()).object(), 'name');
      const { tag } = await boards.createTag({ project_id: call.project.projectId, name });
      return tagReply(call, tag, enrich);
    },

    async get(call: Call): Promise<Reply> {
      const enrich = call.enrichments(TAG_ENRICHMENTS);
      const { tag } = await boards.getTag({ project_id: call.project.projectId, tag: pathTag(call) });
      return tagReply(call, tag, enrich);
    },

    /** `PUT P/tags/{tag}`: `name` renames (the tag stays on its stories); other fields are ignored. */
    async update(call: Call): Promise<Reply> {
      const enrich = call.enrichments(TAG_ENRICHMENTS);
      const name = await bodyAfter(call, tagExists(call), (body) => {
        const fields: Fields = body.object();
        // null is "unset" as for every optional field (docs/compat.md §1.4): the name stays.
        return fields.name === undefined || fields.name === null ? undefined : requiredString(fields, 'name');
      });
      const { tag } = await boards.updateTag({
        project_id: call.project.projectId,
        tag: pathTag(call),
        expected_version: call.expectedVersion(),
        update_mask: name === undefined ? [] : ['name'],
        name: name ?? '',
      });
      return tagReply(call, tag, enrich);
    },

    /** `DELETE P/tags/{tag}`: the tag comes off every story. */
    async remove(call: Call): Promise<Reply> {
      await boards.deleteTag({
        project_id: call.project.projectId,
        tag: pathTag(call),
        expected_version: call.expectedVersion(),
      });
      return empty();
    },

    /** `GET P/tags/{tag}/stories` (F, E, Pg): the stories carrying the tag, in board order. */
    async listStories(call: Call): Promise<Reply> {
      const { projectId } = call.project;
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = call.paging();
      const where = call.query.get('where') ?? '';
      const result = await boards.listTagStories({
        project_id: projectId,
        tag: pathTag(call),
        where,
        page: paging.page,
        page_size: paging.pageSize,
        users: await filterUsers(membership, projectId, where),
        ...keysetOf(paging),
      });
      return storiesPage(call, result, paging, enrich);
    },

    /** `POST P/tags/{tag}/stories`: one story reference (an id or `{id}`; a list → 400). Answers the tag's stories. */
    async addStory(call: Call): Promise<Reply> {
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = writePaging(call);
      const storyId = await bodyAfter(call, tagExists(call), (body) =>
        itemId(singleItem(body.value(), 'story'), 'story'),
      );
      const result = await boards.addTagStory({
        project_id: call.project.projectId,
        tag: pathTag(call),
        story_id: storyId,
        page: paging.page,
        page_size: paging.pageSize,
      });
      return storiesPage(call, result, paging, enrich);
    },

    /** `PUT P/tags/{tag}/stories`: the tag is taken off every story and put on the given ones. */
    async setStories(call: Call): Promise<Reply> {
      const enrich = call.enrichments(STORY_ENRICHMENTS);
      const paging = writePaging(call);
      const storyIds = await bodyAfter(call, tagExists(call), (body) =>
        body.array().map((item) => itemId(item, 'story')),
      );
      const result = await boards.setTagStories({
        project_id: call.project.projectId,
        tag: pathTag(call),
        story_ids: storyIds,
        page: paging.page,
        page_size: paging.pageSize,
      });
      return storiesPage(call, result, paging, enrich);
    },

    /** `DELETE P/tags/{tag}/stories/{storyid}`: a story that does not carry the tag → 404. */
    async removeStory(call: Call): Promise<Reply> {
      await boards.removeTagStory({
        project_id: call.project.projectId,
        tag: pathTag(call),
        story_id: call.id('storyId'),
      });
      return empty();
    },

    /** `GET S/tags` (Pg, E): the story's tags by id. */
    async listForStory(call: Call): Promise<Reply> {
      const enrich = call.enrichments(TAG_ENRICHMENTS);
      const paging = call.paging();
      const result = await boards.listStoryTags({
        project_id: call.project.projectId,
        story_id: call.id('storyId'),
        where: call.query.get('where') ?? '',
        page: paging.page,
        page_size: paging.pageSize,
        ...keysetOf(paging),
      });
      return tagsPage(call, result, paging, enrich);
    },

    /** `POST S/tags`: one tag reference; an unknown name creates the tag. Answers the story's tags. */
    async addToStory(call: Call): Promise<Reply> {
      const enrich = call.enrichments(TAG_ENRICHMENTS);
      const paging = writePaging(call);
      const ref = await bodyAfter(call, storyExists(call), (body) =>
        tagRef(singleItem(body.value(), 'tag'), 'tag'),
      );
      const result = await boards.addStoryTag({
        project_id: call.project.projectId,
        story_id: call.id('storyId'),
        tag: ref,
        page: paging.page,
        page_size: paging.pageSize,
      });
      return tagsPage(call, result, paging, enrich);
    },

    /** `PUT S/tags`: the story's tags become exactly the given ones (unknown names are created). */
    async setOnStory(call: Call): Promise<Reply> {
      const enrich = call.enrichments(TAG_ENRICHMENTS);
      const paging = writePaging(call);
      const refs = await bodyAfter(call, storyExists(call), (body) =>
        body.array().map((item) => tagRef(item, 'tags')),
      );
      const result = await boards.setStoryTags({
        project_id: call.project.projectId,
        story_id: call.id('storyId'),
        tags: refs,
        page: paging.page,
        page_size: paging.pageSize,
      });
      return tagsPage(call, result, paging, enrich);
    },

    /** `DELETE S/tags/{tag}`: takes the tag off the story (not on it → 404). */
    async removeFromStory(call: Call): Promise<Reply> {
      await boards.removeStoryTag({
        project_id: call.project.projectId,
        story_id: call.id('storyId'),
        tag: pathTag(call),
      });
      return empty();
    },
  };
}

/**
 * This resource's operations, each declared once: the router and the OpenAPI document are built from them.
 * `{tag}` is an id or a URL-encoded name (docs/compat.md §5.5); a story's own tags are under `S/tags`.
 */
export const tagOperations = resourceOperations('Tags', 'stories', tagHandlers, [
  get(`${P}/tags`, 'listTags', 'List tags', {
    cursor: true,
    access: 'Read',
    cached: servableFromCache,
    with: 'tag',
    ok: { page: 'Tag' },
    handler: 'list',
  }),
  post(`${P}/tags`, 'createTag', 'Create a tag', {
    access: 'ReadWrite',
    with: 'tag',
    body: 'TagName',
    ok: { one: 'Tag' },
    errors: [409],
    handler: 'create',
  }),
  get(`${P}/tags/:tag(text)`, 'getTag', 'Get a tag', {
    access: 'Read',
    conditional: true,
    cached: servableFromCache,
    with: 'tag',
    ok: { one: 'Tag' },
    handler: 'get',
  }),
  put(`${P}/tags/:tag(text)`, 'renameTag', 'Rename a tag', {
    access: 'ReadWrite',
    conditional: true,
    with: 'tag',
    body: 'TagRename',
    ok: { one: 'Tag' },
    errors: [409],
    handler: 'update',
  }),
  del(`${P}/tags/:tag(text)`, 'deleteTag', 'Delete a tag', {
    access: 'ReadWrite',
    conditional: true,
    ok: 'empty',
    handler: 'remove',
  }),
  get(`${P}/tags/:tag(text)/stories`, 'listTagStories', 'List the stories carrying a tag', {
    cursor: true,
    access: 'Read',
    cached: servableFromCache,
    with: 'story',
    where: 'story',
    ok: { page: 'Story' },
    description: 'In board order; by cursor (`cursor=`), in id (creation) order.',
    handler: 'listStories',
  }),
  post(`${P}/tags/:tag(text)/stories`, 'tagStory', 'Apply a tag to a story', {
    access: 'ReadWrite',
    with: 'story',
    body: 'StoryReference',
    ok: { page: 'Story' },
    description: 'One story reference (an array \u2192 400). Answers the page of stories carrying the tag.',
    handler: 'addStory',
  }),
  put(`${P}/tags/:tag(text)/stories`, 'setTagStories', 'Set the stories carrying a tag', {
    access: 'ReadWrite',
    with: 'story',
    body: 'StoryReferences',
    ok: { page: 'Story' },
    handler: 'setStories',
  }),
  del(`${P}/tags/:tag(text)/stories/:storyId`, 'untagStory', 'Remove a tag from a story', {
    access: 'ReadWrite',
    ok: 'empty',
    handler: 'removeStory',
  }),
  get(`${S}/tags`, 'listStoryTags', "List a story's tags", {
    cursor: true,
    access: 'Read',
    cached: servableFromCache,
    ok: { page: 'Tag' },
    handler: 'listForStory',
  }),
  post(`${S}/tags`, 'addStoryTag', 'Add a tag to a story', {
    access: 'ReadWrite',
    body: 'TagReference',
    ok: { page: 'Tag' },
    addition: true,
    description: "One tag reference; an unknown name creates the tag. Answers the page of the story's tags.",
    handler: 'addToStory',
  }),
  put(`${S}/tags`, 'setStoryTags', "Set a story's tags", {
    access: 'ReadWrite',
    body: 'TagReferences',
    ok: { page: 'Tag' },
    addition: true,
    handler: 'setOnStory',
  }),
  del(`${S}/tags/:tag(text)`, 'removeStoryTag', 'Remove a tag from a story', {
    access: 'ReadWrite',
    ok: 'empty',
    addition: true,
    handler: 'removeFromStory',
  }),
]);
