import type * as grpc from '@grpc/grpc-js';
import { retryableMethods, serviceNameOf } from './channel';

const method = (name: string, idempotency_level?: string) => ({
  path: `/test.v1.ThingService/${name}`,
  requestStream: false,
  responseStream: false,
  requestSerialize: (x: unknown) => Buffer.from(JSON.stringify(x)),
  requestDeserialize: (b: Buffer) => JSON.parse(b.toString()),
  responseSerialize: (x: unknown) => Buffer.from(JSON.stringify(x)),
  responseDeserialize: (b: Buffer) => JSON.parse(b.toString()),
  ...(idempotency_level ? { options: { idempotency_level } } : {}),
});

const service = {
  GetThing: method('GetThing', 'NO_SIDE_EFFECTS'),
  CreateThing: method('CreateThing', 'IDEMPOTENCY_UNKNOWN'),
  PutThing: method('PutThing', 'IDEMPOTENT'),
  DeleteThing: method('DeleteThing'),
} as unknown as grpc.ServiceDefinition;

describe('the retry policy read from the proto', () => {
  it('retries exactly the methods declared NO_SIDE_EFFECTS or IDEMPOTENT', () => {
    expect(retryableMethods(service)).toEqual(['GetThing', 'PutThing']);
  });

  it('names the service from its methods’ paths', () => {
    expect(serviceNameOf(service)).toBe('test.v1.ThingService');
  });
});
