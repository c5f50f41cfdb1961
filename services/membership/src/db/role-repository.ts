import type { Queryable } from '@flowboard/pg-kit';
import type { Role, RoleRepository, RoleWithMembers, User } from '../application/ports';
import type { AccessLevel } from '../domain/access';
import { ROLE_COLUMNS, toRole, toUser, USER_COLUMNS, type RoleRow, type UserRow } from './rows';

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
  async addMember(roleId: number, userId: number): Promise<void> {
    await this.db.query(
      `WITH joined AS (
         INSERT INTO role_members (role_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING role_id
       )
       INSERT INTO project_members (project_id, user_id)
       SELECT r.project_id, $2 FROM roles r WHERE r.id = $1
       ON CONFLICT DO NOTHING`,
      [roleId, userId],
    );
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

  async delete(roleId: number): Promise<void> {
    // role_members and invites of the role go by cascade; project_members rows stay until the caller's
    // removeRolelessMembers.
    await this.db.query('DELETE FROM roles WHERE id = $1', [roleId]);
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

  async removeAllMembers(roleId: number): Promise<number[]> {
    const { rows } = await this.db.query<{ user_id: number }>(
      'DELETE FROM role_members WHERE role_id = $1 RETURNING user_id',
      [roleId],
    );
    return rows.map((r) => r.user_id);
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
