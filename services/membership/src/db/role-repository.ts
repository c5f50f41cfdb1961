import type { Queryable } from '@flowboard/pg-kit';
import type { Invite, Role, RoleRepository, RoleWithMembers, User } from '../application/ports';
import type { AccessLevel } from '../domain/access';
import {
  INVITE_COLUMNS,
  ROLE_COLUMNS,
  toInvite,
  toRole,
  toUser,
  USER_COLUMNS,
  type InviteRow,
  type RoleRow,
  type UserRow,
} from './rows';

export class PgRoleRepository implements RoleRepository {
  constructor(private readonly db: Queryable) {}

  async insert(role: { projectId: number; name: string; access: AccessLevel }): Promise<Role> {
    const { rows } = await this.db.query<RoleRow>(
      `INSERT INTO roles (project_id, name, access) VALUES ($1, $2, $3) RETURNING ${ROLE_COLUMNS}`,
      [role.projectId, role.name, role.access],
    );
    return toRole(rows[0] as RoleRow);
  }

  /** Joining a role also makes the user a direct project member, until they lose their last role of it. */
  async addMember(roleId: number, userId: number): Promise<{ joinedRole: boolean; joinedProject: boolean }> {
    const { rows } = await this.db.query<{ joined_role: boolean; joined_project: boolean }>(
      `WITH joined AS (
         INSERT INTO role_members (role_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING role_id
       ), member AS (
         INSERT INTO project_members (project_id, user_id)
         SELECT r.project_id, $2 FROM roles r WHERE r.id = $1
         ON CONFLICT DO NOTHING
         RETURNING user_id
       )
       SELECT EXISTS (SELECT 1 FROM joined) AS joined_role, EXISTS (SELECT 1 FROM member) AS joined_project`,
      [roleId, userId],
    );
    return { joinedRole: rows[0]?.joined_role === true, joinedProject: rows[0]?.joined_project === true };
  }

  async findInProject(projectId: number, roleId: number): Promise<Role | undefined> {
    const { rows } = await this.db.query<RoleRow>(
      `SELECT ${ROLE_COLUMNS} FROM roles WHERE id = $1 AND project_id = $2`,
      [roleId, projectId],
    );
    return rows[0] && toRole(rows[0]);
  }

  async listWithMembers(projectId: number): Promise<RoleWithMembers[]> {
    const [roles, members] = await Promise.all([
      this.db.query<RoleRow>(`SELECT ${ROLE_COLUMNS} FROM roles WHERE project_id = $1 ORDER BY id`, [
        projectId,
      ]),
      this.db.query<UserRow & { role_id: number }>(
        `SELECT rm.role_id, ${USER_COLUMNS}
           FROM roles r JOIN role_members rm ON rm.role_id = r.id JOIN users u ON u.id = rm.user_id
          WHERE r.project_id = $1
          ORDER BY u.id`,
        [projectId],
      ),
    ]);
    const byRole = new Map<number, RoleWithMembers>(
      roles.rows.map((r) => [r.id, { ...toRole(r), members: [] }]),
    );
    for (const row of members.rows) byRole.get(row.role_id)?.members.push(toUser(row));
    return [...byRole.values()];
  }

  async findWithMembers(projectId: number, roleId: number): Promise<RoleWithMembers | undefined> {
    const role = await this.findInProject(projectId, roleId);
    return role && { ...role, members: await this.listMembers(role.id) };
  }

  async update(roleId: number, changes: { name?: string; access?: AccessLevel }): Promise<void> {
    await this.db.query(
      'UPDATE roles SET name = coalesce($2, name), access = coalesce($3, access) WHERE id = $1',
      [roleId, changes.name ?? null, changes.access ?? null],
    );
  }

  async delete(roleId: number): Promise<Invite[]> {
    // FOR UPDATE first: it waits for invites being created for the role (their foreign-key checks hold KEY
    // SHARE) and keeps new ones out, so the invites deleted next are all the role has. role_members go by
    // cascade; project_members rows stay until the caller's removeRolelessMembers.
    await this.db.query('SELECT 1 FROM roles WHERE id = $1 FOR UPDATE', [roleId]);
    const { rows } = await this.db.query<InviteRow>(
      `WITH gone AS (DELETE FROM invites WHERE role_id = $1 RETURNING *)
       SELECT ${INVITE_COLUMNS} FROM gone WHERE expires_at > now() ORDER BY id`,
      [roleId],
    );
    await this.db.query('DELETE FROM roles WHERE id = $1', [roleId]);
    return rows.map(toInvite);
  }

  async listMembers(roleId: number): Promise<User[]> {
    // role_members' primary key (role_id, user_id), then users by primary key.
    const { rows } = await this.db.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM role_members rm JOIN users u ON u.id = rm.user_id
        WHERE rm.role_id = $1 ORDER BY u.id`,
      [roleId],
    );
    return rows.map(toUser);
  }

  async removeMember(roleId: number, userId: number): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM role_members WHERE role_id = $1 AND user_id = $2', [
      roleId,
      userId,
    ]);
    return (rowCount ?? 0) > 0;
  }

  async removeAllMembers(roleId: number): Promise<User[]> {
    const { rows } = await this.db.query<UserRow>(
      `WITH gone AS (DELETE FROM role_members WHERE role_id = $1 RETURNING user_id)
       SELECT ${USER_COLUMNS} FROM gone JOIN users u ON u.id = gone.user_id ORDER BY u.id`,
      [roleId],
    );
    return rows.map(toUser);
  }

  async findByName(projectId: number, name: string): Promise<Role | undefined> {
    // roles_project_idx: a project has few roles, so the name is checked on its rows.
    const { rows } = await this.db.query<RoleRow>(
      `SELECT ${ROLE_COLUMNS} FROM roles
        WHERE project_id = $1 AND lower(name) = lower($2) ORDER BY id LIMIT 1`,
      [projectId, name],
    );
    return rows[0] && toRole(rows[0]);
  }
}
