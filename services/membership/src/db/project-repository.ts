import type { Queryable } from '@flowboard/pg-kit';
import type { Project, ProjectChanges, ProjectRepository, User } from '../application/ports';
import type { MembershipFacts } from '../domain/access';
import type { NewProject } from '../domain/project';
import {
  PROJECT_COLUMNS,
  toAccess,
  toProject,
  toUser,
  USER_COLUMNS,
  type ProjectRow,
  type UserRow,
} from './rows';

/** Everyone who is a member of project $1: the owner, direct members and role members. */
const MEMBER_IDS = `
  SELECT owner_id AS user_id FROM projects WHERE id = $1
  UNION SELECT user_id FROM project_members WHERE project_id = $1
  UNION SELECT rm.user_id FROM role_members rm JOIN roles r ON r.id = rm.role_id WHERE r.project_id = $1`;

export class PgProjectRepository implements ProjectRepository {
  constructor(private readonly db: Queryable) {}

  async insert(project: NewProject & { ownerId: number }): Promise<Project> {
    const { rows } = await this.db.query<ProjectRow>(
      `INSERT INTO projects AS p (name, description, details, owner_id) VALUES ($1, $2, $3, $4) RETURNING ${PROJECT_COLUMNS}`,
      [project.name, project.description, project.details, project.ownerId],
    );
    return toProject(rows[0] as ProjectRow);
  }

  async addMember(projectId: number, userId: number): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'INSERT INTO project_members (project_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [projectId, userId],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * One round trip, three index probes: projects by primary key, project_members by its primary key, and the
   * caller's role memberships (role_members_user_idx) joined to roles by primary key.
   */
  async findWithMembership(
    projectId: number,
    userId: number,
  ): Promise<{ project: Project; facts: MembershipFacts } | undefined> {
    const { rows } = await this.db.query<ProjectRow & { is_project_member: boolean; role_access: string[] }>(
      `SELECT ${PROJECT_COLUMNS},
              EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = p.id AND pm.user_id = $2) AS is_project_member,
              ARRAY(SELECT r.access FROM role_members rm JOIN roles r ON r.id = rm.role_id
                     WHERE rm.user_id = $2 AND r.project_id = p.id) AS role_access
         FROM projects p
        WHERE p.id = $1`,
      [projectId, userId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      project: toProject(row),
      facts: {
        isOwner: row.owner_id === userId,
        isProjectMember: row.is_project_member,
        roleAccess: row.role_access.map(toAccess),
      },
    };
  }

  async findById(projectId: number): Promise<Project | undefined> {
    // Named: prepared once per connection, as the change stream's names (ResolveNames) ask it for every batch.
    const { rows } = await this.db.query<ProjectRow>({
      name: 'membership-project-by-id',
      text: `SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = $1`,
      values: [projectId],
    });
    return rows[0] && toProject(rows[0]);
  }

  async listMembers(projectId: number): Promise<User[]> {
    const { rows } = await this.db.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users u WHERE u.id IN (${MEMBER_IDS}) ORDER BY u.id`,
      [projectId],
    );
    return rows.map(toUser);
  }

  async hasMemberWithEmail(projectId: number, email: string): Promise<boolean> {
    // At most one user has the address (users_email_lower_key); then: is that user a member?
    const { rows } = await this.db.query<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = lower($2) AND u.id IN (${MEMBER_IDS})) AS found`,
      [projectId, email],
    );
    return rows[0]?.found === true;
  }

  async lockMembership(projectId: number): Promise<void> {
    // NO KEY UPDATE: conflicts with itself, but not with the KEY SHARE locks of foreign-key checks.
    await this.db.query('SELECT 1 FROM projects WHERE id = $1 FOR NO KEY UPDATE', [projectId]);
  }

  async countAdminRoleMembers(projectId: number): Promise<number> {
    // roles_project_idx, then role_members by its primary key.
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(DISTINCT rm.user_id)::int AS n
         FROM roles r JOIN role_members rm ON rm.role_id = r.id
        WHERE r.project_id = $1 AND r.access = 'admin'`,
      [projectId],
    );
    return rows[0]?.n ?? 0;
  }

  async isMember(projectId: number, userId: number): Promise<boolean> {
    const { rows } = await this.db.query<{ found: boolean }>(
      `SELECT $2::bigint IN (${MEMBER_IDS}) AS found`,
      [projectId, userId],
    );
    return rows[0]?.found === true;
  }

  async removeMember(projectId: number, userId: number): Promise<number[]> {
    // role_members_user_idx finds the user's role rows; project_members by its primary key.
    const { rows } = await this.db.query<{ role_id: number }>(
      `DELETE FROM role_members rm USING roles r
        WHERE rm.role_id = r.id AND rm.user_id = $2 AND r.project_id = $1
        RETURNING rm.role_id`,
      [projectId, userId],
    );
    await this.db.query('DELETE FROM project_members WHERE project_id = $1 AND user_id = $2', [
      projectId,
      userId,
    ]);
    return rows.map((r) => r.role_id).sort((a, b) => a - b);
  }

  async removeRolelessMembers(projectId: number, userIds: number[]): Promise<number[]> {
    if (userIds.length === 0) return [];
    // project_members by its primary key; the remaining roles via role_members_user_idx + roles by primary key.
    const { rows } = await this.db.query<{ user_id: number }>(
      `DELETE FROM project_members pm
        WHERE pm.project_id = $1 AND pm.user_id = ANY($2::bigint[])
          AND pm.user_id <> (SELECT owner_id FROM projects WHERE id = $1)
          AND NOT EXISTS (SELECT 1 FROM role_members rm JOIN roles r ON r.id = rm.role_id
                           WHERE rm.user_id = pm.user_id AND r.project_id = $1)
        RETURNING pm.user_id`,
      [projectId, userIds],
    );
    return rows.map((r) => r.user_id).sort((a, b) => a - b);
  }

  async listForUser(userId: number): Promise<Project[]> {
    // projects_owner_idx, project_members_user_idx, role_members_user_idx (+ roles by primary key).
    const { rows } = await this.db.query<ProjectRow>(
      `SELECT ${PROJECT_COLUMNS} FROM projects p
        WHERE p.id IN (SELECT id FROM projects WHERE owner_id = $1
                       UNION SELECT project_id FROM project_members WHERE user_id = $1
                       UNION SELECT r.project_id FROM role_members rm JOIN roles r ON r.id = rm.role_id
                              WHERE rm.user_id = $1)
        ORDER BY p.id`,
      [userId],
    );
    return rows.map(toProject);
  }

  async listReadableForUser(userId: number): Promise<Array<{ id: number; name: string }>> {
    // Effective access >= read (docs/compat.md §3.2): the owner (admin), or a role with more than `none`; a
    // direct member without such a role has `none`. projects_owner_idx, role_members_user_idx + roles by
    // primary key.
    const { rows } = await this.db.query<{ id: number; name: string }>(
      `SELECT p.id, p.name FROM projects p
        WHERE p.id IN (SELECT id FROM projects WHERE owner_id = $1
                       UNION SELECT r.project_id FROM role_members rm JOIN roles r ON r.id = rm.role_id
                              WHERE rm.user_id = $1 AND r.access <> 'none')
        ORDER BY p.id`,
      [userId],
    );
    return rows;
  }

  async update(projectId: number, changes: ProjectChanges): Promise<Project | undefined> {
    const { rows } = await this.db.query<ProjectRow>(
      `UPDATE projects AS p SET name = COALESCE($2, p.name), description = COALESCE($3, p.description),
              details = COALESCE($4, p.details), owner_id = COALESCE($5, p.owner_id)
        WHERE p.id = $1 RETURNING ${PROJECT_COLUMNS}`,
      [
        projectId,
        changes.name ?? null,
        changes.description ?? null,
        changes.details ?? null,
        changes.ownerId ?? null,
      ],
    );
    return rows[0] && toProject(rows[0]);
  }

  async delete(projectId: number): Promise<void> {
    // Cascades: project_members (primary key prefix), roles (roles_project_idx) → role_members (primary key
    // prefix) and invites (invites_role_idx), invites (invites_project_email_idx prefix).
    await this.db.query('DELETE FROM projects WHERE id = $1', [projectId]);
  }
}
