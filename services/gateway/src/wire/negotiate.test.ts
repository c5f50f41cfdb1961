import { acceptsEventStream, mediaTypeFormat, responseFormat } from './negotiate';

describe('responseFormat (docs/compat.md §1.2)', () => {
  it.each([
    ['nothing at all → JSON', {}, 'json'],
    ['suffix beats Accept', { suffix: 'xml', accept: 'application/json' }, 'xml'],
    ['suffix beats Content-Type', { suffix: 'json', contentType: 'application/xml' }, 'json'],
    ['Accept application/xml', { accept: 'application/xml' }, 'xml'],
    ['Accept text/xml', { accept: 'text/xml' }, 'xml'],
    ['Accept +xml', { accept: 'application/atom+xml' }, 'xml'],
    ['Accept +json', { accept: 'application/problem+json' }, 'json'],
    ['highest q wins', { accept: 'application/json;q=0.5, application/xml;q=0.9' }, 'xml'],
    ['tie → first listed', { accept: 'application/xml, application/json' }, 'xml'],
    ['tie → first listed (JSON first)', { accept: 'application/json;q=0.8, text/xml;q=0.8' }, 'json'],
    ['q=0 is refusal', { accept: 'application/xml;q=0, application/json;q=0.1' }, 'json'],
    ['*/* does not count, Content-Type decides', { accept: '*/*', contentType: 'application/xml' }, 'xml'],
    ['*/* with higher q than xml still xml', { accept: '*/*;q=1, application/xml;q=0.1' }, 'xml'],
    [
      'unrelated Accept falls through',
      { accept: 'text/html', contentType: 'text/xml; charset=utf-8' },
      'xml',
    ],
    ['GET with XML Content-Type and no Accept', { contentType: 'application/xml' }, 'xml'],
    ['unrelated Content-Type → JSON', { contentType: 'text/plain' }, 'json'],
    ['case and spaces', { accept: ' Application/XML ; Q=0.7 ' }, 'xml'],
  ] as const)('%s', (_name, input, expected) => {
    expect(responseFormat(input)).toBe(expected);
  });
});

describe('mediaTypeFormat', () => {
  it('classifies XML, JSON and the rest', () => {
    expect(mediaTypeFormat('application/xml; charset=utf-8')).toBe('xml');
    expect(mediaTypeFormat('application/json')).toBe('json');
    expect(mediaTypeFormat('multipart/form-data; boundary=x')).toBeUndefined();
    expect(mediaTypeFormat(undefined)).toBeUndefined();
  });
});

describe('acceptsEventStream', () => {
  it.each([
    ['text/event-stream', true],
    ['Text/Event-Stream; charset=utf-8', true],
    ['application/json, text/event-stream;q=0.5', true],
    ['text/event-stream;q=0', false],
    ['*/*', false],
    ['text/*', false],
    ['application/json', false],
    ['', false],
  ] as const)('%s → %s', (accept, expected) => {
    expect(acceptsEventStream(accept)).toBe(expected);
  });

  it('reads every Accept header and none at all', () => {
    expect(acceptsEventStream(['application/json', 'text/event-stream'])).toBe(true);
    expect(acceptsEventStream(undefined)).toBe(false);
  });

  it('leaves the response format (of refusals) to the usual rules', () => {
    expect(responseFormat({ accept: 'text/event-stream' })).toBe('json');
  });
});
