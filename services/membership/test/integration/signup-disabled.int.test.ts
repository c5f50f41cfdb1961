import { status } from '@grpc/grpc-js';
import { uniqueSuffix } from '@flowboard/testing';
import { codeOf, startHarness, type Harness } from './harness';

/**
 * Sign-up switched off by configuration (`SIGNUP_ENABLED=false`): SignUp is NOT_FOUND, which the gateway maps to
 * 404 (docs/compat.md §6: "switched off by configuration → 404"), and no user is created.
 */
jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ SIGNUP_ENABLED: 'false' });
});
afterAll(async () => {
  await h?.close();
});

it('answers SignUp with NOT_FOUND and creates nobody', async () => {
  const userName = `closed-${uniqueSuffix()}`;
  const attempt = h.call('SignUp', {
    name: 'George Sr.',
    user_name: userName,
    email: `${userName}@example.test`,
  });
  expect(await codeOf(attempt)).toBe(status.NOT_FOUND);
  // Even an invalid body: the switch comes first, so a closed sign-up says nothing about field rules.
  expect(await codeOf(h.call('SignUp', {}))).toBe(status.NOT_FOUND);
  const { rows } = await h.pool.query('SELECT 1 FROM users WHERE user_name = $1', [userName]);
  expect(rows).toHaveLength(0);
});
