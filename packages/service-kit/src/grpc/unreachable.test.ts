import { DomainError, isDomainError } from '../errors';
import { unavailableIfUnreachable } from './unreachable';

const kindOf = (error: unknown) => {
  const out = unavailableIfUnreachable(error);
  return isDomainError(out) ? out.kind : 'unchanged';
};

describe('unavailableIfUnreachable', () => {
  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    ['a reset connection', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a PostgreSQL connection exception', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['an administrator shutdown', Object.assign(new Error('terminating connection'), { code: '57P01' })],
    ['too many connections', Object.assign(new Error('too many clients'), { code: '53300' })],
    ['a statement timeout', Object.assign(new Error('canceling statement'), { code: '57014' })],
    ["node-postgres's connect timeout", new Error('timeout exceeded when trying to connect')],
    ["node-postgres's dropped socket", new Error('Connection terminated unexpectedly')],
  ])('%s is Unavailable, without its details', (_, error) => {
    expect(kindOf(error)).toBe('Unavailable');
    expect((unavailableIfUnreachable(error) as DomainError).message).toBe('A backing service is unavailable');
  });

  it.each([
    ['a deadlock victim', Object.assign(new Error('deadlock detected'), { code: '40P01' })],
    ['a serialization failure', Object.assign(new Error('could not serialize access'), { code: '40001' })],
  ])('%s is Unavailable: nothing was written, and the request may be sent again', (_, error) => {
    expect(kindOf(error)).toBe('Unavailable');
    expect((unavailableIfUnreachable(error) as DomainError).message).toBe(
      'A concurrent change held what this request needed; nothing was written',
    );
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a syntax error in SQL', Object.assign(new Error('syntax error'), { code: '42601' })],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a non-error', 'boom'],
  ])('%s is left as it is', (_, error) => {
    expect(kindOf(error)).toBe('unchanged');
  });

  it('keeps a domain error, even one whose cause was a socket error', () => {
    const error = new DomainError('NotFound', 'No such story', {
      cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    });
    expect(unavailableIfUnreachable(error)).toBe(error);
  });

  it('keeps the original error as the cause, for the log', () => {
    const original = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect((unavailableIfUnreachable(original) as DomainError).cause).toBe(original);
  });
});
