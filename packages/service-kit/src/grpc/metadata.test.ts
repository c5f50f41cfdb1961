import { Metadata } from '@grpc/grpc-js';
import { API_KEY_ID_KEY, API_KEY_NAME_KEY, contextToMetadata, metadataToContext } from './metadata';

describe('the caller in gRPC metadata', () => {
  const fallback = () => 'generated';

  it('carries the request id, the user and the API key (a name of any characters) there and back', () => {
    const context = { requestId: 'r1', userId: 7, apiKey: { id: 12, name: 'triage bot — Zoë, 🤖' } };
    const metadata = contextToMetadata(context);
    expect(metadata.get(API_KEY_NAME_KEY)[0]).toMatch(/^[\x20-\x7e]+$/);
    expect(metadataToContext(metadata, fallback)).toEqual(context);
  });

  it('leaves out what the caller lacks', () => {
    expect(metadataToContext(contextToMetadata({ requestId: 'r2' }), fallback)).toEqual({ requestId: 'r2' });
    expect(metadataToContext(new Metadata(), fallback)).toEqual({ requestId: 'generated' });
  });

  it('ignores a malformed key id, and keeps the id of a key whose name is not percent-encoded', () => {
    const metadata = new Metadata();
    metadata.set(API_KEY_ID_KEY, '12x');
    expect(metadataToContext(metadata, fallback)).toEqual({ requestId: 'generated' });
    metadata.set(API_KEY_ID_KEY, '12');
    metadata.set(API_KEY_NAME_KEY, '%E0%A4%A');
    expect(metadataToContext(metadata, fallback)).toEqual({
      requestId: 'generated',
      apiKey: { id: 12, name: '' },
    });
  });
});
