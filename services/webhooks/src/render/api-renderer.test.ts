import { makeEvent, resourceChangedV1, type ResourceChangedV1 } from '@flowboard/events';
import type { membership } from '@flowboard/proto';
import { createApiRenderer, type NameSource } from './api-renderer';

const user = (id: number, name: string): membership.User__Output => ({
  id,
  name,
  user_name: name.toLowerCase(),
  email: `${name.toLowerCase()}@example.test`,
  bio: 'bio',
  create_time: '2026-01-01T00:00:00',
});
const gob = user(42, 'Gob');
const ann = user(7, 'Ann');
const gobRef = { id: 42, name: 'Gob', userName: 'gob', email: 'gob@example.test' };

function setup(answer = { projectName: 'Sudden Valley', users: [gob, ann] }) {
  const asked: Array<{ projectId: number; userIds: number[] }> = [];
  const names: NameSource = {
    resolve: async (projectId, userIds) => {
      asked.push({ projectId, userIds });
      return { projectName: answer.projectName, users: new Map(answer.users.map((u) => [u.id, u])) };
    },
  };
  return { renderer: createApiRenderer(names), asked };
}

const change = (
  type: ResourceChangedV1['type'],
  subject: string,
  resource: Record<string, unknown>,
  actorId = 42,
) => makeEvent(resourceChangedV1, 'test', { projectId: 5, actorId, type, subject, resource });

const story = {
  id: 3,
  text: 'Build the model home',
  details: 'On the cheap',
  size: '2',
  color: 'red',
  priority: '',
  deadline: '',
  status: 'blocked',
  blocked_reason: 'Termites',
  phase: { id: 11, name: 'Working' },
  creator_id: 42,
  owner_id: 7,
  version: 4,
};

describe('api renderer', () => {
  it('renders a story as GET S shows it with details, names resolved in one lookup with the actor', async () => {
    const { renderer, asked } = setup();
    const rendered = await renderer.render(change('story.blocked', 'story:3', story));
    expect(asked).toEqual([{ projectId: 5, userIds: [42, 7] }]);
    expect(rendered).toEqual({
      project: { id: 5, name: 'Sudden Valley' },
      actor: gobRef,
      data: {
        id: 3,
        text: 'Build the model home',
        details: 'On the cheap',
        size: '2',
        color: 'red',
        priority: '',
        deadline: undefined,
        status: 'blocked',
        blockedReason: 'Termites',
        project: { id: 5, name: 'Sudden Valley' },
        phase: { id: 11, name: 'Working' },
        creator: gobRef,
        owner: { id: 7, name: 'Ann', userName: 'ann', email: 'ann@example.test' },
      },
    });
    // The contract's key order, which the stored body keeps.
    expect(Object.keys(JSON.parse(JSON.stringify(rendered.data)))).toEqual([
      'id',
      'text',
      'details',
      'size',
      'color',
      'priority',
      'status',
      'blockedReason',
      'project',
      'phase',
      'creator',
      'owner',
    ]);
  });

  it('names the story of a change to its task, comment or tag, and renders the child as the API does', async () => {
    const { renderer } = setup();
    const task = await renderer.render(
      change('task.updated', 'story:3', {
        id: 9,
        text: 'Buy a seal',
        status: 'complete',
        create_time: '2026-01-02T00:00:00',
        finish_time: '2026-01-03T00:00:00',
        finished_by: 7,
      }),
    );
    expect(task.story).toEqual({ id: 3 });
    expect(task.data).toEqual({
      id: 9,
      text: 'Buy a seal',
      status: 'complete',
      createTime: '2026-01-02T00:00:00',
      finishTime: '2026-01-03T00:00:00',
      finishedBy: { id: 7, name: 'Ann', userName: 'ann', email: 'ann@example.test' },
    });
    const comment = await renderer.render(
      change('comment.created', 'story:3', { id: 2, text: 'Huge mistake', create_time: 't', author_id: 42 }),
    );
    expect(comment).toMatchObject({
      story: { id: 3 },
      data: { id: 2, text: 'Huge mistake', createTime: 't', author: gobRef },
    });
    const tag = await renderer.render(change('story.tagged', 'story:3', { id: 4, name: 'urgent' }));
    expect(tag).toMatchObject({ story: { id: 3 }, data: { id: 4, name: 'urgent' } });
  });

  it('leaves tokens out of invites and attachments, which a third party receives', async () => {
    const { renderer } = setup();
    const invite = await renderer.render(
      change('invite.created', 'invite:8', {
        id: 8,
        create_time: 't',
        email: 'lindsay@example.test',
        token: 'secret-invite-token',
        sender: gob,
        role: { id: 1, name: 'Members' },
      }),
    );
    expect(invite.data).toEqual({
      id: 8,
      createTime: 't',
      email: 'lindsay@example.test',
      sender: gobRef,
      role: { id: 1, name: 'Members' },
    });
    const attachment = await renderer.render(
      change('attachment.created', 'story:3', {
        id: 6,
        file_name: 'plans.pdf',
        size_in_bytes: 10,
        content_type: 'application/pdf',
        token: 'secret-download-token',
      }),
    );
    expect(attachment).toEqual({
      project: { id: 5, name: 'Sudden Valley' },
      actor: gobRef,
      story: { id: 3 },
      data: { id: 6, fileName: 'plans.pdf', sizeInBytes: 10, contentType: 'application/pdf' },
    });
  });

  it('renders members and roles as P/members and P/roles show them', async () => {
    const { renderer } = setup();
    const member = await renderer.render(change('member.added', 'member:7', { ...ann }));
    expect(member.data).toEqual({
      id: 7,
      name: 'Ann',
      userName: 'ann',
      email: 'ann@example.test',
      bio: 'bio',
      createTime: '2026-01-01T00:00:00',
    });
    const role = await renderer.render(
      change('role.updated', 'role:2', {
        id: 2,
        name: 'Builders',
        access: 'ACCESS_READWRITE',
        members: [ann],
      }),
    );
    expect(role.data).toEqual({
      id: 2,
      name: 'Builders',
      access: 'readwrite',
      members: [{ id: 7, name: 'Ann', userName: 'ann', email: 'ann@example.test' }],
    });
  });

  it('shows a system action’s actor as id 0, and a user or project gone since with empty names', async () => {
    const { renderer, asked } = setup({ projectName: '', users: [] });
    const rendered = await renderer.render(change('story.deleted', 'story:3', story, 0));
    expect(asked).toEqual([{ projectId: 5, userIds: [42, 7] }]);
    expect(rendered.actor).toEqual({ id: 0 });
    expect(rendered.project).toEqual({ id: 5, name: '' });
    expect(rendered.data).toMatchObject({ creator: { id: 42, name: '', userName: '', email: '' } });
  });

  it('renders what it has of a resource of an unexpected shape instead of failing', async () => {
    const { renderer } = setup();
    await expect(renderer.render(change('role.deleted', 'role:2', {}))).resolves.toMatchObject({
      data: { members: [] },
    });
  });

  it('fails (so the event is retried) when the lookup fails', async () => {
    const renderer = createApiRenderer({
      resolve: () => Promise.reject(new Error('membership unavailable')),
    });
    await expect(renderer.render(change('story.created', 'story:3', story))).rejects.toThrow(
      'membership unavailable',
    );
  });
});
