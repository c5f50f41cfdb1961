import { DependencyUnavailableError, DomainError } from '@flowboard/service-kit';
import { HttpProblem, StatusProblem, asDomainError, renderProblem } from './problem';

describe('renderProblem (docs/compat.md §3.4)', () => {
  it('renders JSON problem details with requestId', () => {
    const error = new DomainError('InvalidArgument', "Unknown filter property 'colour'.", {
      problem: 'invalid-filter',
    });
    const r = renderProblem(error, 'req1', 'json');
    expect(r.status).toBe(400);
    expect(r.headers['Content-Type']).toBe('application/problem+json; charset=utf-8');
    expect(r.body).toBe(
      '{"type":"urn:flowboard:problem:invalid-filter","title":"Invalid request","status":400,' +
        '"detail":"Unknown filter property \'colour\'.","requestId":"req1"}',
    );
  });

  it('renders XML <error> with alphabetical children', () => {
    const r = renderProblem(new DomainError('NotFound', 'No such story.'), 'req2', 'xml');
    expect(r.headers['Content-Type']).toBe('application/xml; charset=utf-8');
    expect(r.body).toBe(
      '<?xml version="1.0" encoding="utf-8"?><error><detail>No such story.</detail><requestId>req2</requestId>' +
        '<status>404</status><title>Not found</title><type>urn:flowboard:problem:not-found</type></error>',
    );
  });

  it('a StatusProblem answers its own status, type and title, with its headers, in both formats', () => {
    const gone = new StatusProblem(410, 'history-gone', 'Gone', 'Read the board again.', { 'X-Extra': '1' });
    const json = renderProblem(gone, 'r1', 'json');
    expect(json).toEqual({
      status: 410,
      headers: { 'Content-Type': 'application/problem+json; charset=utf-8', 'X-Extra': '1' },
      body:
        '{"type":"urn:flowboard:problem:history-gone","title":"Gone","status":410,' +
        '"detail":"Read the board again.","requestId":"r1"}',
    });
    expect(renderProblem(gone, 'r1', 'xml').body).toBe(
      '<?xml version="1.0" encoding="utf-8"?><error><detail>Read the board again.</detail><requestId>r1</requestId>' +
        '<status>410</status><title>Gone</title><type>urn:flowboard:problem:history-gone</type></error>',
    );
    // A client error to the rest of the gateway: no 503 or 401 headers, not logged as a failure.
    expect(gone.kind).toBe('FailedPrecondition');
  });

  it('401 carries WWW-Authenticate', () => {
    const r = renderProblem(new DomainError('Unauthenticated', 'An API key is required.'), 'r', 'json');
    expect(r.status).toBe(401);
    expect(r.headers['WWW-Authenticate']).toBe('Bearer realm="flowboard"');
  });

  it('405 carries Allow; 402 and 413 come from the table', () => {
    expect(
      renderProblem(new HttpProblem('MethodNotAllowed', 'no', { Allow: 'GET, HEAD' }), 'r', 'json'),
    ).toMatchObject({
      status: 405,
      headers: { Allow: 'GET, HEAD' },
    });
    expect(renderProblem(new DomainError('PlanLimitExceeded', 'full'), 'r', 'json').status).toBe(402);
    expect(renderProblem(new DomainError('PayloadTooLarge', 'big'), 'r', 'json').status).toBe(413);
    expect(renderProblem(new DomainError('Unavailable', 'down'), 'r', 'json').status).toBe(503);
  });

  it("every 503 says when to retry: the breaker's own figure, else 2 s", () => {
    expect(renderProblem(new DependencyUnavailableError('webhooks', 4), 'r', 'json')).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '4' },
    });
    const plain = renderProblem(new DomainError('Unavailable', 'down'), 'r', 'xml');
    expect(plain.headers['Retry-After']).toBe('2');
    expect(
      JSON.parse(renderProblem(new DependencyUnavailableError('files', 1), 'r', 'json').body),
    ).toMatchObject({
      type: 'urn:flowboard:problem:unavailable',
      detail: 'A dependency is unavailable',
    });
    expect(
      renderProblem(new DomainError('DeadlineExceeded', 'slow'), 'r', 'json').headers['Retry-After'],
    ).toBe(undefined);
  });

  it('unknown errors become a generic 500 that shows nothing internal', () => {
    const r = renderProblem(asDomainError(new Error('SELECT * FROM secrets failed')), 'r', 'json');
    expect(r.status).toBe(500);
    expect(r.body).not.toContain('secrets');
    expect(JSON.parse(r.body)).toMatchObject({
      type: 'urn:flowboard:problem:internal',
      detail: 'Internal error',
    });
  });
});
