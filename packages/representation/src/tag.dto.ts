import type { boards } from '@flowboard/proto';
import type { Dto } from './dto';

/** Tag (spec "Tag"): `{id, name}`; in XML `<tag><id/><name/></tag>`, in arrays `tags/tag`. */
export const tagDto = (tag: boards.Tag__Output): Dto => ({ id: tag.id, name: tag.name });

/** A story in a tag's `stories` enrichment: `{id, text}` (`stories/story` in XML). */
export const storySummaryDto = (story: boards.StorySummary__Output): Dto => ({
  id: story.id,
  text: story.text,
});
