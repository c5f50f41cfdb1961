import { isPgError, PG_UNIQUE_VIOLATION, type Queryable } from '@flowboard/pg-kit';
import { DomainError } from '@flowboard/service-kit';
import type { ApiKey, User, UserChanges, UserRepository } from '../application/ports';
import type { NewUser } from '../domain/user';
import {
  KEY_ENABLED,
  PREFIXED_API_KEY_COLUMNS,
  toPrefixedApiKey,
  toUser,
  USER_COLUMNS,
  type UserRow,
} from './rows';

// Unique indexes (0001_init.sql) → the request field they protect.
const UNIQUE_FIELDS: Record<string, string> = {
  users_user_name_lower_key: 'userName',
  users_email_lower_key: 'email',
};

export class PgUserRepository implements UserRepository {
  constructor(private readonly db: Queryable) {}

  async insert(user: NewUser): Promise<User> {
    return this.uniquely(async () => {
      const { rows } = await this.db.query<UserRow>(
        `INSERT INTO users AS u (name, user_name, email) VALUES ($1, $2, $3) RETURNING ${USER_COLUMNS}`,
        [user.name, user.userName, user.email],
      );
      return toUser(rows[0] as UserRow);
    });
  }

  async update(id: number, changes: UserChanges): Promise<User | undefined> {
    return this.uniquely(async () => {
      // COALESCE keeps unset fields; primary key lookup.
      const { rows } = await this.db.query<UserRow>(
        `UPDATE users AS u SET name = COALESCE($2, u.name), user_name = COALESCE($3, u.user_name),
                email = COALESCE($4, u.email), bio = COALESCE($5, u.bio)
          WHERE u.id = $1 RETURNING ${USER_COLUMNS}`,
        [id, changes.name ?? null, changes.userName ?? null, changes.email ?? null, changes.bio ?? null],
      );
      return rows[0] && toUser(rows[0]);
    });
  }

  async setEnabled(id: number, enabled: boolean): Promise<{ user: User; enabled: boolean } | undefined> {
    // Primary key. AuthenticateApiKey reads u.enabled on every lookup, so the change applies to every key.
    const { rows } = await this.db.query<UserRow & { enabled: boolean }>(
      `UPDATE users AS u SET enabled = $2 WHERE u.id = $1 RETURNING ${USER_COLUMNS}, u.enabled`,
      [id, enabled],
    );
    const row = rows[0];
    return row && { user: toUser(row), enabled: row.enabled };
  }

  /** Runs a write, turning a unique violation into AlreadyExists naming the field (409). */
  private async uniquely<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      const field = isPgError(err, PG_UNIQUE_VIOLATION)
        ? UNIQUE_FIELDS[(err as { constraint?: string }).constraint ?? '']
        : undefined;
      if (field)
        throw new DomainError('AlreadyExists', `A user with this ${field} already exists.`, { cause: err });
      throw err;
    }
  }

  async findById(id: number): Promise<User | undefined> {
    const { rows } = await this.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1`, [
      id,
    ]);
    return rows[0] && toUser(rows[0]);
  }

  async findByIds(ids: number[]): Promise<User[]> {
    // Named: prepared once per connection, as the change stream's names (ResolveNames) ask it for every batch.
    const { rows } = await this.db.query<UserRow>({
      name: 'membership-users-by-ids',
      text: `SELECT ${USER_COLUMNS} FROM users u WHERE u.id = ANY($1::bigint[]) ORDER BY u.id`,
      values: [ids],
    });
    return rows.map(toUser);
  }

  async findByUserName(userName: string): Promise<User | undefined> {
    const { rows } = await this.db.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users u WHERE lower(u.user_name) = lower($1)`,
      [userName],
    );
    return rows[0] && toUser(rows[0]);
  }

  async findByApiKeyHash(keyHash: string): Promise<{ user: User; apiKey: ApiKey } | undefined> {
    // api_keys_key_hash_key: one row of each table. An expired key is as unknown as a deleted one, from its
    // expiry on.
    const { rows } = await this.db.query<UserRow & Record<string, unknown>>(
      `SELECT ${USER_COLUMNS}, ${PREFIXED_API_KEY_COLUMNS}
         FROM api_keys k JOIN users u ON u.id = k.user_id
        WHERE k.key_hash = $1 AND ${KEY_ENABLED} AND u.enabled AND (k.expires_at IS NULL OR k.expires_at > now())`,
      [keyHash],
    );
    const row = rows[0];
    return row && { user: toUser(row), apiKey: toPrefixedApiKey(row) };
  }
}
