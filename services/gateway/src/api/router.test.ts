import { Router, route } from './router';

const noop = async () => ({ kind: 'empty' as const });
const router = new Router([
  route('GET', '/api/v1/projects/:projectId', { access: 'Read' }, noop),
  route('PUT', '/api/v1/projects/:projectId', { access: 'Admin' }, noop),
  route('POST', '/api/v1/projects/:projectId/stories', { access: 'ReadWrite' }, noop),
  route('GET', '/api/v1/projects/:projectId/tags/:tag(text)', { access: 'Read' }, noop),
  route('POST', '/api/v1/users', { public: true }, noop),
]);
const seg = (path: string) => path.split('/').filter(Boolean);

describe('Router', () => {
  it('matches integer parameters', () => {
    const m = router.match('GET', seg('/api/v1/projects/42'));
    expect(m).toMatchObject({ kind: 'found', params: { projectId: 42 } });
  });

  it('a non-integer id is no route (404)', () => {
    expect(router.match('GET', seg('/api/v1/projects/abc')).kind).toBe('not-found');
    expect(router.match('GET', seg('/api/v1/projects/-1')).kind).toBe('not-found');
    expect(router.match('GET', seg('/api/v1/projects/1.5')).kind).toBe('not-found');
  });

  it('text parameters take any segment', () => {
    expect(router.match('GET', seg('/api/v1/projects/1/tags/come on'))).toMatchObject({
      kind: 'found',
      params: { projectId: 1, tag: 'come on' },
    });
  });

  it('HEAD is served by GET', () => {
    expect(router.match('HEAD', seg('/api/v1/projects/1')).kind).toBe('found');
  });

  it('a known path with the wrong method is 405 with every allowed method', () => {
    expect(router.match('DELETE', seg('/api/v1/projects/1'))).toEqual({
      kind: 'method-not-allowed',
      allow: ['GET', 'HEAD', 'PUT', 'OPTIONS'],
    });
  });

  it('literal segments ignore case', () => {
    expect(router.match('POST', seg('/API/V1/Users')).kind).toBe('found');
  });

  it('unknown paths are 404', () => {
    expect(router.match('GET', seg('/api/v2/projects/1')).kind).toBe('not-found');
    expect(router.match('GET', seg('/api/v1/projects/1/nothing')).kind).toBe('not-found');
  });
});
