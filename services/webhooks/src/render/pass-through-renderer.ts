import type { PayloadRenderer } from '../application/ports';

/**
 * For now the payload's `data` is the publishing service's `resource` as it came (ids and fields, user and project
 * names not yet resolved). To be replaced by a renderer that shows the resource as the API does.
 */
export const passThroughRenderer: PayloadRenderer = {
  render: async (event) => event.data.resource,
};
