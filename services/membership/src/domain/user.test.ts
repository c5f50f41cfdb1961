import { DomainError } from '@flowboard/service-kit';
import { parseEmail, parseNewUser, parseUserName } from './user';
import { parseNewProject } from './project';

const invalid = (fn: () => unknown, field: string) => {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).kind).toBe('InvalidArgument');
  expect((error as DomainError).message).toContain(`'${field}'`);
};

describe('user validation', () => {
  it('trims, keeps case, and defaults the display name to the login name', () => {
    expect(parseNewUser({ userName: '  Gob.Bluth_1-x ', email: ' Gob@bluth.com ' })).toEqual({
      name: 'Gob.Bluth_1-x',
      userName: 'Gob.Bluth_1-x',
      email: 'Gob@bluth.com',
    });
    expect(parseNewUser({ name: '  Gob Bluth ', userName: 'gob', email: 'gob@bluth.com' }).name).toBe(
      'Gob Bluth',
    );
  });

  it.each(['', '   ', 'gob bluth', 'göb', 'a/b', 'x'.repeat(201)])('rejects the userName %j', (userName) => {
    invalid(() => parseUserName(userName), 'userName');
  });

  it('accepts a 200-character userName', () => {
    expect(parseUserName('x'.repeat(200))).toHaveLength(200);
  });

  it.each(['', 'gob', 'gob@', '@bluth.com', 'gob@bluth', 'g ob@bluth.com', `${'x'.repeat(250)}@bluth.com`])(
    'rejects the email %j',
    (email) => invalid(() => parseEmail(email), 'email'),
  );

  it('rejects a display name over 200 characters', () => {
    invalid(() => parseNewUser({ name: 'n'.repeat(201), userName: 'gob', email: 'gob@bluth.com' }), 'name');
  });
});

describe('project validation', () => {
  it('requires a trimmed name of at most 200 characters', () => {
    expect(parseNewProject({ name: '  Sudden Valley ' })).toEqual({
      name: 'Sudden Valley',
      description: '',
      details: '',
    });
    invalid(() => parseNewProject({ name: '   ' }), 'name');
    invalid(() => parseNewProject({ name: 'n'.repeat(201) }), 'name');
  });

  it('caps long text', () => {
    invalid(() => parseNewProject({ name: 'x', description: 'd'.repeat(100_001) }), 'description');
  });
});
