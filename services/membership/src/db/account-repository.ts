import type { Queryable } from '@flowboard/pg-kit';
import type { AccountRepository } from '../application/ports';
import type { AccountOverrides } from '../domain/account';

interface AccountRow {
  collaborator_limit: number | null;
  storage_limit_bytes: number | null;
}

const toOverrides = (r: AccountRow): AccountOverrides => ({
  // bigint arrives as a string unless pg-kit parses it; Number() keeps this independent of that.
  collaboratorLimit: r.collaborator_limit === null ? null : Number(r.collaborator_limit),
  storageLimitBytes: r.storage_limit_bytes === null ? null : Number(r.storage_limit_bytes),
});

/** A missing account row of an existing user: no overrides yet. */
const NO_OVERRIDES: AccountOverrides = { collaboratorLimit: null, storageLimitBytes: null };

export class PgAccountRepository implements AccountRepository {
  constructor(private readonly db: Queryable) {}

  async ensure(userId: number): Promise<void> {
    // Through users, so an unknown id inserts nothing instead of failing the foreign key.
    await this.db.query(
      'INSERT INTO accounts (user_id) SELECT id FROM users WHERE id = $1 ON CONFLICT DO NOTHING',
      [userId],
    );
  }

  async lock(userId: number): Promise<AccountOverrides | undefined> {
    await this.ensure(userId);
    const { rows } = await this.db.query<AccountRow>(
      'SELECT collaborator_limit, storage_limit_bytes FROM accounts WHERE user_id = $1 FOR UPDATE',
      [userId],
    );
    return rows[0] && toOverrides(rows[0]);
  }

  async find(userId: number): Promise<AccountOverrides | undefined> {
    const { rows } = await this.db.query<AccountRow & { has_account: boolean }>(
      `SELECT a.collaborator_limit, a.storage_limit_bytes, a.user_id IS NOT NULL AS has_account
         FROM users u LEFT JOIN accounts a ON a.user_id = u.id
        WHERE u.id = $1`,
      [userId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return row.has_account ? toOverrides(row) : NO_OVERRIDES;
  }

  async countCollaborators(ownerId: number): Promise<number> {
    // People are keyed by lower(email) (unique among users), so an invited address that belongs to a member,
    // or is invited to two projects, counts once. Index paths: projects_owner_idx; project_members and
    // role_members by their primary-key prefixes (roles via roles_project_idx); invites_project_email_idx's
    // project_id prefix; users by primary key.
    const { rows } = await this.db.query<{ n: number }>(
      `WITH owned AS (SELECT id FROM projects WHERE owner_id = $1),
            member_ids AS (
              SELECT user_id FROM project_members WHERE project_id IN (SELECT id FROM owned)
              UNION
              SELECT rm.user_id FROM roles r JOIN role_members rm ON rm.role_id = r.id
               WHERE r.project_id IN (SELECT id FROM owned)),
            people AS (
              SELECT lower(u.email) AS who FROM users u WHERE u.id IN (SELECT user_id FROM member_ids)
              UNION
              SELECT lower(i.email) FROM invites i
               WHERE i.project_id IN (SELECT id FROM owned) AND i.expires_at > now())
       SELECT count(*)::int AS n FROM people
        WHERE who IS DISTINCT FROM (SELECT lower(email) FROM users WHERE id = $1)`,
      [ownerId],
    );
    return rows[0]?.n ?? 0;
  }

  async update(
    userId: number,
    changes: { collaboratorLimit?: number | null; storageLimitBytes?: number | null },
  ): Promise<AccountOverrides | undefined> {
    await this.ensure(userId);
    // $2/$4 say whether to touch the column at all, so null can mean "back to the default".
    const { rows } = await this.db.query<AccountRow>(
      `UPDATE accounts
          SET collaborator_limit = CASE WHEN $2 THEN $3::bigint ELSE collaborator_limit END,
              storage_limit_bytes = CASE WHEN $4 THEN $5::bigint ELSE storage_limit_bytes END,
              updated_at = now()
        WHERE user_id = $1
        RETURNING collaborator_limit, storage_limit_bytes`,
      [
        userId,
        changes.collaboratorLimit !== undefined,
        changes.collaboratorLimit ?? null,
        changes.storageLimitBytes !== undefined,
        changes.storageLimitBytes ?? null,
      ],
    );
    return rows[0] && toOverrides(rows[0]);
  }
}
