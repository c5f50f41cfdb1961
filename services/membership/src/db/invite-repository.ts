import type { Queryable } from '@flowboard/pg-kit';
import type { Invite, InviteRepository } from '../application/ports';
import { INVITE_COLUMNS, toInvite, type InviteRow } from './rows';

export class PgInviteRepository implements InviteRepository {
  constructor(private readonly db: Queryable) {}

  async lockAddress(projectId: number, email: string): Promise<void> {
    // A transaction-scoped advisory lock: a second invite for the same address waits, then sees the first.
    await this.db.query(
      "SELECT pg_advisory_xact_lock(hashtextextended('membership.invite:' || $1 || ':' || lower($2), 0))",
      [projectId, email],
    );
  }

  async hasPending(projectId: number, email: string): Promise<boolean> {
    const { rows } = await this.db.query<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM invites
                       WHERE project_id = $1 AND lower(email) = lower($2) AND expires_at > now()) AS found`,
      [projectId, email],
    );
    return rows[0]?.found === true;
  }

  async insert(invite: {
    projectId: number;
    roleId: number;
    email: string;
    token: string;
    senderId: number;
    ttlDays: number;
  }): Promise<Invite> {
    const { rows } = await this.db.query<InviteRow>(
      `INSERT INTO invites (project_id, role_id, email, token, sender_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6))
       RETURNING ${INVITE_COLUMNS}`,
      [invite.projectId, invite.roleId, invite.email, invite.token, invite.senderId, invite.ttlDays],
    );
    return toInvite(rows[0] as InviteRow);
  }

  async listPending(projectId: number): Promise<Invite[]> {
    // invites_project_email_idx (its project_id prefix); a project has few invites, sorted here.
    const { rows } = await this.db.query<InviteRow>(
      `SELECT ${INVITE_COLUMNS} FROM invites WHERE project_id = $1 AND expires_at > now() ORDER BY id`,
      [projectId],
    );
    return rows.map(toInvite);
  }

  async findPending(projectId: number, inviteId: number): Promise<Invite | undefined> {
    const { rows } = await this.db.query<InviteRow>(
      `SELECT ${INVITE_COLUMNS} FROM invites WHERE id = $1 AND project_id = $2 AND expires_at > now()`,
      [inviteId, projectId],
    );
    return rows[0] && toInvite(rows[0]);
  }

  async deletePending(projectId: number, inviteId: number): Promise<Invite | undefined> {
    const { rows } = await this.db.query<InviteRow>(
      `DELETE FROM invites WHERE id = $1 AND project_id = $2 AND expires_at > now() RETURNING ${INVITE_COLUMNS}`,
      [inviteId, projectId],
    );
    return rows[0] && toInvite(rows[0]);
  }

  async findPendingByToken(token: string): Promise<Invite | undefined> {
    const { rows } = await this.db.query<InviteRow>(
      `SELECT ${INVITE_COLUMNS} FROM invites WHERE token = $1 AND expires_at > now()`,
      [token],
    );
    return rows[0] && toInvite(rows[0]);
  }

  async takeByToken(token: string): Promise<Invite | undefined> {
    // invites_token_key. A concurrent second DELETE waits for the first's row lock, then finds no row.
    const { rows } = await this.db.query<InviteRow>(
      `DELETE FROM invites WHERE token = $1 AND expires_at > now() RETURNING ${INVITE_COLUMNS}`,
      [token],
    );
    return rows[0] && toInvite(rows[0]);
  }
}
