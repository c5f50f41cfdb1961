import type { Queryable } from '@flowboard/pg-kit';
import type { ApiKeyRepository } from '../application/ports';

export class PgApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Queryable) {}

  async insert(key: { userId: number; keyHash: string; hint: string }): Promise<{ id: number }> {
    const { rows } = await this.db.query<{ id: number }>(
      'INSERT INTO api_keys (user_id, key_hash, hint) VALUES ($1, $2, $3) RETURNING id',
      [key.userId, key.keyHash, key.hint],
    );
    return rows[0] as { id: number };
  }
}
