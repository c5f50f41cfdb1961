import type { boards } from '@flowboard/proto';
import { XML_ONLY_EMPTY, type Dto } from './dto';

/** Phase: `limit` 0 means none, omitted in JSON and `<limit />` in XML (docs/compat.md §5.4). */
export const phaseDto = (phase: boards.Phase__Output): Dto => ({
  id: phase.id,
  name: phase.name,
  description: phase.description,
  index: phase.index,
  limit: phase.limit > 0 ? phase.limit : XML_ONLY_EMPTY,
});
