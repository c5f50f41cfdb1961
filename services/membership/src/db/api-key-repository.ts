import type { Queryable } from '@flowboard/pg-kit';
import type { ApiKey, ApiKeyRepository } from '../application/ports';

interface ApiKeyRow {
  id: number;
  user_id: number;
  hint: string;
  enabled: boolean;
  created_at: Date;
}

const COLUMNS = 'id, user_id, hint, enabled, created_at';

const toApiKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  userId: r.user_id,
  hint: r.hint,
  enabled: r.enabled,
  createdAt: r.created_at,
});

export class PgApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Queryable) {}

  async insert(key: { userId: number; keyHash: string; hint: string }): Promise<ApiKey> {
    const { rows } = await this.db.query<ApiKeyRow>(
      `INSERT INTO api_keys (user_id, key_hash, hint) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
      [key.userId, key.keyHash, key.hint],
    );
    return toApiKey(rows[0] as ApiKeyRow);
  }

  async listByUser(userId: number): Promise<ApiKey[]> {
    // api_keys_user_idx
    const { rows } = await this.db.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY id`,
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
      `UPDATE api_keys SET enabled = $3 WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}, key_hash`,
      [id, userId, enabled],
    );
    const row = rows[0];
    return row && { apiKey: toApiKey(row), keyHash: row.key_hash };
  }
}
