import { filesErrorFrom } from './files-proxy';

describe('filesErrorFrom', () => {
  it('maps the files error answer to a DomainError with its problem', () => {
    expect(
      filesErrorFrom(402, { kind: 'PlanLimitExceeded', problem: 'plan-limit', message: 'Full.' }),
    ).toMatchObject({
      kind: 'PlanLimitExceeded',
      problem: 'plan-limit',
      message: 'Full.',
    });
    expect(
      filesErrorFrom(400, { kind: 'InvalidArgument', problem: 'invalid-body', message: 'No file.' }),
    ).toMatchObject({
      problem: 'invalid-body',
    });
  });

  it('an unknown problem falls back to the kind default; an unknown kind is internal', () => {
    expect(filesErrorFrom(413, { kind: 'PayloadTooLarge', problem: 'nope', message: 'Big.' }).problem).toBe(
      'payload-too-large',
    );
    expect(filesErrorFrom(500, { error: 'boom' })).toMatchObject({ kind: 'Internal' });
    expect(filesErrorFrom(500, 'text')).toMatchObject({ kind: 'Internal' });
  });

  it('never passes on an internal message', () => {
    expect(filesErrorFrom(500, { kind: 'Internal', message: 'stack trace here' }).message).toBe(
      'Internal error',
    );
  });
});
