import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  DomainError,
  ERROR_TABLE,
  fromGrpcError,
  httpProblemFor,
  toGrpcError,
  type ErrorKind,
} from './errors';

describe('error table', () => {
  // MethodNotAllowed is an HTTP answer (the gateway's router, files' upload server), never sent between services:
  // UNIMPLEMENTED from a peer means the peer lacks the method (below).
  const kinds = (Object.keys(ERROR_TABLE) as ErrorKind[]).filter((kind) => kind !== 'MethodNotAllowed');

  it.each(kinds)('%s survives the trip through gRPC with its HTTP status', (kind) => {
    const sent = toGrpcError(new DomainError(kind, 'why'));
    const received = fromGrpcError(sent);
    expect(received.kind).toBe(kind);
    expect(httpProblemFor(received).status).toBe(ERROR_TABLE[kind].http);
  });

  it('maps plan limits to 402 through the error reason, not the code', () => {
    const sent = toGrpcError(new DomainError('PlanLimitExceeded', 'storage full'));
    expect(sent.code).toBe(GrpcStatus.FAILED_PRECONDITION);
    expect(httpProblemFor(fromGrpcError(sent))).toMatchObject({ status: 402, slug: 'plan-limit' });
  });

  it('keeps a finer problem type across the wire', () => {
    const sent = toGrpcError(
      new DomainError('InvalidArgument', "Unknown filter property 'colour'.", { problem: 'invalid-filter' }),
    );
    const received = fromGrpcError(sent);
    expect(received.problem).toBe('invalid-filter');
    expect(received.message).toBe("Unknown filter property 'colour'.");
  });

  it('hides the message of unexpected errors', () => {
    const sent = toGrpcError(new Error('password=hunter2 in a stack trace'));
    expect(sent.code).toBe(GrpcStatus.INTERNAL);
    expect(sent.details).toBe('Internal error');
  });

  it('treats a peer without the method (an older release mid-rollout) as unavailable, not as a 405', () => {
    const received = fromGrpcError({
      code: GrpcStatus.UNIMPLEMENTED,
      details: 'The server does not implement the method',
    });
    expect(received.kind).toBe('Unavailable');
    expect(httpProblemFor(received).status).toBe(503);
  });

  it('treats a transport failure as an unavailable dependency (503)', () => {
    const received = fromGrpcError({
      code: GrpcStatus.UNAVAILABLE,
      details: 'connect ECONNREFUSED 127.0.0.1:1',
    });
    expect(httpProblemFor(received).status).toBe(503);
    expect(received.message).not.toContain('127.0.0.1');
  });
});
