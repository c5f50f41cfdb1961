import { readFileSync } from 'node:fs';
import path from 'node:path';
import { api } from './support';

/**
 * The stack's operator token: FLOWBOARD_OPERATOR_TOKEN (npm test exports it), else the file the local stack
 * keeps in $FLOWBOARD_HOME (deploy/local/services.sh), so a targeted run against `npm start` works too.
 */
export function operatorToken(): string {
  const fromEnv = process.env.FLOWBOARD_OPERATOR_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const home = process.env.FLOWBOARD_HOME;
  if (home) return readFileSync(path.join(home, 'operator-token'), 'utf8').trim();
  throw new Error(
    'No operator token: set FLOWBOARD_OPERATOR_TOKEN (or FLOWBOARD_HOME of the running stack).',
  );
}

/** `PUT /api/v1/admin/accounts/{userId}` as the operator. */
export async function setAccountLimits(
  userId: number,
  limits: { collaboratorLimit?: number | null; storageLimitBytes?: number | null },
): Promise<void> {
  const res = await api(`/api/v1/admin/accounts/${userId}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${operatorToken()}` },
    body: limits,
  });
  if (res.status !== 200) throw new Error(`setting account limits failed: ${res.status} ${res.text}`);
}
