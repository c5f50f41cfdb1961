import { existsSync, readFileSync } from 'node:fs';
import { GATEWAY_URL, operatorToken } from './support';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- shared with jest's globalSetup (plain JS)
const { EXERCISED_FILE } = require('../exercised') as { EXERCISED_FILE: string };

/**
 * Run last (coverage-last-sequencer.js): every operation of the OpenAPI document answered 2xx to some end-to-end
 * test of this run. Every call goes through the contract check (support.ts), so a new operation is proven against
 * its documented shape by its own resource's test, wherever that is; this file only checks none was left out.
 */
it('every documented operation was exercised by the end-to-end tests', async () => {
  const document = (await (await fetch(`${GATEWAY_URL}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, object>;
  };
  const documented = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method} ${path}`),
  );
  const exercised = new Set(
    existsSync(EXERCISED_FILE) ? readFileSync(EXERCISED_FILE, 'utf8').split('\n') : [],
  );
  // The operator's API needs the stack's operator token; without one it can only be refused.
  const skipped = operatorToken()
    ? []
    : [
        'put /api/v1/admin/accounts/{userId}',
        'put /api/v1/admin/users/{userId}',
        'put /api/v1/admin/users/{userId}/apikeys/{keyId}',
      ];
  expect(documented.length).toBeGreaterThan(70);
  expect(documented.filter((op) => !exercised.has(op) && !skipped.includes(op))).toEqual([]);
});
