import type { boards, membership } from '@flowboard/proto';
import {
  inviteDto,
  toJson,
  projectDto,
  roleDto,
  storyDto,
  signedUpUserDto,
  userDto,
} from '@flowboard/representation';
import { toXml } from './xml';

const gob: membership.User__Output = {
  id: 1,
  name: 'Gob Bluth',
  user_name: 'gob',
  email: 'Gob@bluth.com',
  bio: '',
  create_time: '2011-02-17T18:00:00',
};

const story = (over: Partial<boards.Story__Output> = {}): boards.Story__Output => ({
  version: 1,
  project_id: 1,
  id: 3,
  text: 'Buy boat "The Sea Word"',
  details: '',
  size: '',
  priority: '',
  color: 'orange',
  deadline: '',
  status: 'finished',
  blocked_reason: '',
  phase: { id: 5, name: 'Archive' },
  creator_id: 1,
  owner_id: 0,
  create_time: '2011-02-17T18:00:00',
  ...over,
});

const view = { project: { id: 1, name: 'Sudden Valley' }, users: new Map([[1, gob]]), details: false };

describe('DTOs keep the original JSON key order', () => {
  it('user, full user and sign-up', () => {
    expect(Object.keys(userDto(gob))).toEqual(['id', 'name', 'userName', 'email', 'bio', 'createTime']);
    expect(Object.keys(signedUpUserDto(gob, 'k'))).toEqual([
      'id',
      'name',
      'userName',
      'email',
      'bio',
      'createTime',
      'apiKey',
    ]);
  });

  it('story without optional fields omits deadline, blockedReason, owner and details', () => {
    expect(toJson(storyDto(story(), view))).toBe(
      '{"id":3,"text":"Buy boat \\"The Sea Word\\"","size":"","color":"orange","priority":"","status":"finished",' +
        '"project":{"id":1,"name":"Sudden Valley"},"phase":{"id":5,"name":"Archive"},' +
        '"creator":{"id":1,"name":"Gob Bluth","userName":"gob","email":"Gob@bluth.com"}}',
    );
  });

  it('story with everything set', () => {
    const dto = storyDto(
      story({
        details: 'd',
        deadline: '2011-02-24T00:00:00',
        status: 'blocked',
        blocked_reason: 'r',
        owner_id: 1,
      }),
      {
        ...view,
        details: true,
      },
    );
    expect(Object.keys(dto)).toEqual([
      'id',
      'text',
      'details',
      'size',
      'color',
      'priority',
      'deadline',
      'status',
      'blockedReason',
      'project',
      'phase',
      'creator',
      'owner',
    ]);
  });

  it('a creator the batch did not return keeps its id', () => {
    expect(storyDto(story({ creator_id: 9 }), view).creator).toEqual({
      id: 9,
      name: '',
      userName: '',
      email: '',
    });
  });

  it('project with enrichments', () => {
    const project: membership.Project__Output = {
      id: 1,
      name: 'Sudden Valley',
      description: '',
      details: 'md',
      create_time: '2011-02-17T18:47:16',
      owner: gob,
      version: 1,
    };
    const role: membership.Role__Output = {
      version: 1,
      id: 3,
      name: 'Administrators',
      access: 'ACCESS_ADMIN',
      members: [gob],
    };
    const dto = projectDto(project, { details: true, members: [gob], phases: [], roles: [role] });
    expect(Object.keys(dto)).toEqual([
      'id',
      'name',
      'description',
      'details',
      'createTime',
      'owner',
      'members',
      'metrics',
      'phases',
      'roles',
      'invites',
    ]);
    expect(Object.keys(projectDto(project))).toEqual([
      'id',
      'name',
      'description',
      'details',
      'createTime',
      'owner',
      'members',
      'metrics',
      'phases',
      'roles',
      'invites',
    ]);
    expect(toJson(projectDto(project))).toBe(
      '{"id":1,"name":"Sudden Valley","description":"","createTime":"2011-02-17T18:47:16",' +
        '"owner":{"id":1,"name":"Gob Bluth","userName":"gob","email":"Gob@bluth.com"}}',
    );
    expect(toXml('project', dto)).toContain('<phases /><roles><role><access>admin</access>');
  });

  it('role access names', () => {
    expect(roleDto({ id: 1, name: 'r', access: 'ACCESS_READWRITE', members: [], version: 1 }).access).toBe(
      'readwrite',
    );
    expect(roleDto({ id: 1, name: 'r', access: 'ACCESS_UNSPECIFIED', members: [], version: 1 }).access).toBe(
      'none',
    );
  });

  it('invite', () => {
    const dto = inviteDto({
      id: 7,
      create_time: 't',
      email: 'x@y.z',
      token: 'tok',
      sender: gob,
      role: { id: 4, name: 'Members' },
    });
    expect(Object.keys(dto)).toEqual(['id', 'createTime', 'email', 'token', 'sender', 'role']);
    expect(dto.role).toEqual({ id: 4, name: 'Members' });
  });
});
