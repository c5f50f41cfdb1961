export const V1 = '/api/v1';
/** `P` and `S` as in the spec: a project, and a story of it. */
export const P = `${V1}/projects/:projectId`;
export const S = `${P}/stories/:storyId`;
