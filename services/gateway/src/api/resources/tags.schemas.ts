import {
  arrayOf,
  body,
  int,
  pageSchema,
  ref,
  resource,
  str,
  TRIMMED,
  xmlArray,
  type ResourceSchemas,
  type Schema,
} from '../schema';

/** Tags (tags.routes.ts): a project's tags, the stories of one, the tags of one story. */

/** A tag name: non-blank and without control characters (names travel in paths and XML). */
const tagName: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  pattern: `^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u001f\\u007f-\\u009f${TRIMMED}][^\\u0000-\\u001f\\u007f-\\u009f]*$`,
  description: 'Trimmed; unique in the project ignoring case; no control characters.',
};

export const tagSchemas: ResourceSchemas = {
  responses: {
    Tag: resource('tag', ['id', 'name'], {
      id: int(),
      name: str(),
      stories: arrayOf(ref('StorySummary'), 'With `with=stories`.'),
    }),
  },
  pages: { TagPage: pageSchema('Tag', 'tags') },
  requests: {
    StoryReferences: xmlArray(ref('StoryReference'), 'stories', 'story'),
    TagName: body('tag', { name: tagName }, ['name']),
    TagRename: body('tag', { name: tagName }),
    TagReferences: xmlArray(ref('TagReference'), 'tags', 'tag'),
  },
};
