import type { Queryable } from '@flowboard/pg-kit';
import { hasLimits, type ApiKeyScope } from '../domain/api-key';
import type { ApiKey, ApiKeyRepository } from '../application/ports';
import { API_KEY_COLUMNS, toApiKey, type ApiKeyRow } from './rows';

export class PgApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Queryable) {}

  async insert(key: { userId: number; keyHash: string; hint: string; scope?: ApiKeyScope }): Promise<ApiKey> {
    const scope = key.scope;
    // A key with limits is hidden from releases older than them (0006_scoped_api_keys.sql).
    const limited = scope !== undefined && hasLimits(scope);
    const { rows } = await this.db.query<ApiKeyRow>(
      `INSERT INTO api_keys AS k
              (user_id, key_hash, hint, name, expires_at, read_only, project_ids, scope_groups, enabled, enabled_with_limits)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${API_KEY_COLUMNS}`,
      [
        key.userId,
        key.keyHash,
        key.hint,
        scope?.name ?? '',
        scope?.expiresAt ?? null,
        scope?.readOnly ?? false,
        scope?.projectIds ?? null,
        scope?.groups ?? null,
        !limited,
        limited ? true : null,
      ],
    );
    return toApiKey(rows[0] as ApiKeyRow);
  }

  async listByUser(userId: number): Promise<ApiKey[]> {
    // api_keys_user_idx
    const { rows } = await this.db.query<ApiKeyRow>(
      `SELECT ${API_KEY_COLUMNS} FROM api_keys k WHERE k.user_id = $1 ORDER BY k.id`,
      [userId],
    );
    return rows.map(toApiKey);
  }

  async listHashes(userId: number): Promise<string[]> {
    // api_keys_user_idx
    const { rows } = await this.db.query<{ key_hash: string }>(
      'SELECT key_hash FROM api_keys WHERE user_id = $1',
      [userId],
    );
    return rows.map((r) => r.key_hash);
  }

  async deleteForUser(id: number, userId: number): Promise<string | undefined> {
    // Primary key; the user check makes another user's key indistinguishable from a missing one.
    const { rows } = await this.db.query<{ key_hash: string }>(
      'DELETE FROM api_keys WHERE id = $1 AND user_id = $2 RETURNING key_hash',
      [id, userId],
    );
    return rows[0]?.key_hash;
  }

  async setEnabledForUser(
    id: number,
    userId: number,
    enabled: boolean,
  ): Promise<{ apiKey: ApiKey; keyHash: string } | undefined> {
    // Primary key; as for deletes, another user's key is indistinguishable from a missing one.
    const { rows } = await this.db.query<ApiKeyRow & { key_hash: string }>(
      `UPDATE api_keys AS k
          SET enabled = CASE WHEN k.enabled_with_limits IS NULL THEN $3 ELSE false END,
              enabled_with_limits = CASE WHEN k.enabled_with_limits IS NULL THEN NULL ELSE $3 END
        WHERE k.id = $1 AND k.user_id = $2 RETURNING ${API_KEY_COLUMNS}, k.key_hash`,
      [id, userId, enabled],
    );
    const row = rows[0];
    return row && { apiKey: toApiKey(row), keyHash: row.key_hash };
  }

  async recordUses(uses: ReadonlyArray<{ id: number; usedAt: Date }>): Promise<void> {
    if (uses.length === 0) return;
    // Primary key per row; GREATEST so a late batch from a slow replica never moves a time back.
    await this.db.query(
      `UPDATE api_keys AS k SET last_used_at = GREATEST(k.last_used_at, u.used_at)
         FROM unnest($1::bigint[], $2::timestamptz[]) AS u (id, used_at)
        WHERE k.id = u.id`,
      [uses.map((u) => u.id), uses.map((u) => u.usedAt)],
    );
  }
}
