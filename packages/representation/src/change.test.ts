import type { Envelope, ResourceChangedV1 } from '@flowboard/events';
import type { membership } from '@flowboard/proto';
import { changePayloadJson, changeUserIds, renderChange, type ChangeNames } from './change';

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
const names: ChangeNames = { projectName: 'Sudden Valley', users: new Map([gob, ann].map((u) => [u.id, u])) };
const nobody: ChangeNames = { projectName: '', users: new Map() };

/** Event n: id …00n, at 03:04:0n.678 (fixed, so the bytes can be pinned). */
const change = (
  n: number,
  type: ResourceChangedV1['type'],
  subject: string,
  resource: Record<string, unknown>,
  actorId = 42,
): Envelope<ResourceChangedV1> => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  type: 'flowboard.resource-changed',
  version: 1,
  occurredAt: `2026-01-02T03:04:${String(n).padStart(2, '0')}.678Z`,
  source: 'test',
  data: { projectId: 5, actorId, type, subject, resource },
});

const story = {
  id: 3,
  text: 'Build "the" model home\u2028é',
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
const task = {
  id: 9,
  text: 'Buy a seal',
  status: 'complete',
  create_time: 't',
  finish_time: 'u',
  finished_by: 7,
};
const invite = {
  id: 8,
  create_time: 't',
  email: 'l@example.test',
  token: 'secret-invite',
  sender: gob,
  role: { id: 1, name: 'Members' },
};

const gobJson = '{"id":42,"name":"Gob","userName":"gob","email":"gob@example.test"}';
const annJson = '{"id":7,"name":"Ann","userName":"ann","email":"ann@example.test"}';
const gobRef = { id: 42, name: 'Gob', userName: 'gob', email: 'gob@example.test' };

/** The event as webhooks send it: rendered with the names of its user ids, then written as JSON. */
const bytes = (event: Envelope<ResourceChangedV1>, answer = names) =>
  changePayloadJson(renderChange(event, answer));

describe('changeUserIds', () => {
  it('is the users the resource refers to by id, then the actor, each once', () => {
    expect(changeUserIds(change(1, 'story.created', 'story:3', story).data)).toEqual([42, 7]);
    expect(changeUserIds(change(1, 'story.updated', 'story:3', { ...story, owner_id: 0 }, 7).data)).toEqual([
      42, 7,
    ]);
    expect(changeUserIds(change(1, 'task.updated', 'story:3', task).data)).toEqual([7, 42]);
    expect(changeUserIds(change(1, 'task.created', 'story:3', { ...task, finished_by: 0 }).data)).toEqual([
      42,
    ]);
    expect(
      changeUserIds(change(1, 'comment.created', 'story:3', { id: 2, text: 'x', author_id: 7 }, 7).data),
    ).toEqual([7]);
  });

  it('leaves out a system action’s actor (0), and users a resource embeds (invites’ senders, roles’ members)', () => {
    expect(changeUserIds(change(1, 'story.moved', 'story:3', story, 0).data)).toEqual([42, 7]);
    expect(changeUserIds(change(1, 'invite.created', 'invite:8', invite, 7).data)).toEqual([7]);
    expect(changeUserIds(change(1, 'role.updated', 'role:2', { id: 2, members: [ann] }, 0).data)).toEqual([]);
    expect(changeUserIds(change(1, 'story.tagged', 'story:3', { id: 4, name: 'urgent' }).data)).toEqual([42]);
    expect(changeUserIds(change(1, 'story.deleted', 'story:3', {}, 0).data)).toEqual([]);
  });
});

describe('renderChange and changePayloadJson: the bytes webhooks send', () => {
  it('a story as GET S?with=details shows it, without `story` (the change is the story’s own)', () => {
    expect(bytes(change(1, 'story.created', 'story:3', story))).toBe(
      '{"id":"00000000-0000-4000-8000-000000000001","type":"story.created","timestamp":"2026-01-02T03:04:01.678Z",' +
        `"project":{"id":5,"name":"Sudden Valley"},"actor":${gobJson},` +
        '"data":{"id":3,"text":"Build \\"the\\" model home\u2028é","details":"On the cheap","size":"2","color":"red",' +
        '"priority":"","status":"blocked","blockedReason":"Termites","project":{"id":5,"name":"Sudden Valley"},' +
        `"phase":{"id":11,"name":"Working"},"creator":${gobJson},"owner":${annJson}}}`,
    );
  });

  it('a task, with the story it belongs to', () => {
    expect(bytes(change(10, 'task.updated', 'story:3', task, 7))).toBe(
      '{"id":"00000000-0000-4000-8000-000000000010","type":"task.updated","timestamp":"2026-01-02T03:04:10.678Z",' +
        `"project":{"id":5,"name":"Sudden Valley"},"actor":${annJson},"story":{"id":3},` +
        `"data":{"id":9,"text":"Buy a seal","status":"complete","createTime":"t","finishTime":"u","finishedBy":${annJson}}}`,
    );
  });

  it('the API key the change was made with, in its actor (its name as it was then)', () => {
    const made = change(11, 'story.moved', 'story:3', story);
    const withKey = { ...made, data: { ...made.data, actorKey: { id: 12, name: 'triage bot' } } };
    expect(bytes(withKey)).toContain(
      `"actor":${gobJson.slice(0, -1)},"apiKey":{"id":12,"name":"triage bot"}},"data":`,
    );
    // A system action names no key even if one came along.
    const system = { ...withKey, data: { ...withKey.data, actorId: 0 } };
    expect(bytes(system)).toContain('"actor":{"id":0},"data":');
  });

  it('a tag put on a story: the tag, with the story', () => {
    expect(bytes(change(7, 'story.tagged', 'story:3', { id: 4, name: 'urgent' }))).toBe(
      '{"id":"00000000-0000-4000-8000-000000000007","type":"story.tagged","timestamp":"2026-01-02T03:04:07.678Z",' +
        `"project":{"id":5,"name":"Sudden Valley"},"actor":${gobJson},"story":{"id":3},` +
        '"data":{"id":4,"name":"urgent"}}',
    );
  });

  it('an invite without its token (it accepts the invite; a payload goes to a third party)', () => {
    const json = bytes(change(23, 'invite.created', 'invite:8', invite));
    expect(json).toBe(
      '{"id":"00000000-0000-4000-8000-000000000023","type":"invite.created","timestamp":"2026-01-02T03:04:23.678Z",' +
        `"project":{"id":5,"name":"Sudden Valley"},"actor":${gobJson},` +
        `"data":{"id":8,"createTime":"t","email":"l@example.test","sender":${gobJson},"role":{"id":1,"name":"Members"}}}`,
    );
    expect(json).not.toContain('secret-invite');
  });

  it('a phase as P/phases shows it (no limit: left out), without `story`', () => {
    const phase = { id: 12, name: 'Review', description: 'Eyes', index: 3, limit: 0, version: 2 };
    expect(bytes(change(26, 'phase.updated', 'phase:12', phase))).toBe(
      '{"id":"00000000-0000-4000-8000-000000000026","type":"phase.updated","timestamp":"2026-01-02T03:04:26.678Z",' +
        `"project":{"id":5,"name":"Sudden Valley"},"actor":${gobJson},` +
        '"data":{"id":12,"name":"Review","description":"Eyes","index":3}}',
    );
    expect(
      JSON.parse(bytes(change(27, 'phase.created', 'phase:12', { ...phase, limit: 4 }))).data.limit,
    ).toBe(4);
  });

  it('a tag of the board as P/tags shows it, without `story`', () => {
    expect(bytes(change(28, 'tag.deleted', 'tag:4', { id: 4, name: 'urgent', version: 3 }))).toBe(
      '{"id":"00000000-0000-4000-8000-000000000028","type":"tag.deleted","timestamp":"2026-01-02T03:04:28.678Z",' +
        `"project":{"id":5,"name":"Sudden Valley"},"actor":${gobJson},"data":{"id":4,"name":"urgent"}}`,
    );
  });
});

describe('renderChange', () => {
  it('is the event’s identity, then project, actor, story when there is one, and data, in that order', () => {
    const payload = renderChange(change(10, 'task.updated', 'story:3', task, 7), names);
    expect(Object.keys(payload)).toEqual(['id', 'type', 'timestamp', 'project', 'actor', 'story', 'data']);
    const own = renderChange(change(1, 'story.updated', 'story:3', story), names);
    expect(Object.keys(own)).toEqual(['id', 'type', 'timestamp', 'project', 'actor', 'data']);
    expect(own).not.toHaveProperty('story');
  });

  it('names the story of a comment or attachment, whose token it leaves out', () => {
    expect(
      renderChange(
        change(1, 'comment.created', 'story:3', { id: 2, text: 'Huge', create_time: 't', author_id: 42 }),
        names,
      ),
    ).toMatchObject({ story: { id: 3 }, data: { id: 2, text: 'Huge', createTime: 't', author: gobRef } });
    const attachment = renderChange(
      change(1, 'attachment.created', 'story:3', {
        id: 6,
        file_name: 'plans.pdf',
        size_in_bytes: 10,
        content_type: 'application/pdf',
        token: 'secret-download-token',
      }),
      names,
    );
    expect(attachment).toMatchObject({ story: { id: 3 } });
    expect(attachment.data).toEqual({
      id: 6,
      fileName: 'plans.pdf',
      sizeInBytes: 10,
      contentType: 'application/pdf',
    });
  });

  it('renders members and roles as P/members and P/roles show them', () => {
    expect(renderChange(change(1, 'member.added', 'member:7', { ...ann }), names).data).toEqual({
      id: 7,
      name: 'Ann',
      userName: 'ann',
      email: 'ann@example.test',
      bio: 'bio',
      createTime: '2026-01-01T00:00:00',
    });
    const role = { id: 2, name: 'Builders', access: 'ACCESS_READWRITE', members: [ann] };
    expect(renderChange(change(1, 'role.updated', 'role:2', role), names).data).toEqual({
      id: 2,
      name: 'Builders',
      access: 'readwrite',
      members: [{ id: 7, name: 'Ann', userName: 'ann', email: 'ann@example.test' }],
    });
  });

  it('shows a system action’s actor as id 0, and users or a project gone since with empty names', () => {
    const payload = renderChange(change(1, 'story.deleted', 'story:3', story, 0), nobody);
    expect(payload.actor).toEqual({ id: 0 });
    expect(payload.project).toEqual({ id: 5, name: '' });
    expect(payload.data).toMatchObject({ creator: { id: 42, name: '', userName: '', email: '' } });
    expect(renderChange(change(1, 'task.updated', 'story:3', task, 42), nobody).actor).toEqual({
      id: 42,
      name: '',
      userName: '',
      email: '',
    });
  });

  it('renders what it has of a resource of an unexpected shape instead of failing', () => {
    expect(renderChange(change(1, 'role.deleted', 'role:2', {}), names).data).toMatchObject({ members: [] });
    expect(renderChange(change(1, 'task.updated', 'story:abc', { id: 9 }), names)).not.toHaveProperty(
      'story',
    );
  });
});

describe('changePayloadJson', () => {
  const parts = {
    id: '0b7e6c1e-2f6a-4d3b-9a51-6f1c2d3e4f50',
    type: 'task.updated',
    timestamp: '2026-01-02T03:04:05.678Z',
    project: { id: 7, name: 'Sudden Valley' },
    actor: gobRef,
  };

  it('writes id, type, timestamp, project, actor, story and data in that order, whatever the object’s own', () => {
    const { id, ...rest } = parts;
    const shuffled = { data: { id: 9, text: 'Fix the stair car' }, story: { id: 3 }, ...rest, id };
    expect(changePayloadJson(shuffled)).toBe(
      '{"id":"0b7e6c1e-2f6a-4d3b-9a51-6f1c2d3e4f50","type":"task.updated","timestamp":"2026-01-02T03:04:05.678Z",' +
        `"project":{"id":7,"name":"Sudden Valley"},"actor":${gobJson},` +
        '"story":{"id":3},"data":{"id":9,"text":"Fix the stair car"}}',
    );
  });

  it('leaves `story` out when absent or undefined, and writes a null as JSON.stringify does', () => {
    const expected =
      '{"id":"0b7e6c1e-2f6a-4d3b-9a51-6f1c2d3e4f50","type":"task.updated","timestamp":"2026-01-02T03:04:05.678Z",' +
      `"project":{"id":7,"name":"Sudden Valley"},"actor":${gobJson},"data":{"id":1,"text":null}}`;
    expect(changePayloadJson({ ...parts, data: { id: 1, text: null } })).toBe(expected);
    expect(changePayloadJson({ ...parts, story: undefined, data: { id: 1, text: null } })).toBe(expected);
  });
});
