import { MAX_ERROR_LENGTH, resultFromResponse, truncateError } from './attempt-result';

describe('resultFromResponse', () => {
  it('succeeds on any 2xx', () => {
    expect(resultFromResponse(200, 'ok', 12)).toEqual({
      ok: true,
      statusCode: 200,
      latencyMs: 12,
      error: '',
    });
    expect(resultFromResponse(204, '', 3).ok).toBe(true);
  });

  it('fails on a redirect, which is never followed', () => {
    expect(resultFromResponse(302, '<html>moved</html>', 5)).toEqual({
      ok: false,
      statusCode: 302,
      latencyMs: 5,
      error: 'HTTP 302: redirects are not followed',
    });
  });

  it('fails on anything else with the start of the answer, whitespace folded', () => {
    expect(resultFromResponse(500, 'boom\n  at line 1', 7).error).toBe('HTTP 500: boom at line 1');
    expect(resultFromResponse(404, '', 7).error).toBe('HTTP 404');
    expect(resultFromResponse(503, 'x'.repeat(5000), 7).error).toHaveLength(MAX_ERROR_LENGTH);
  });
});

describe('truncateError', () => {
  it('cuts long texts with an ellipsis', () => {
    expect(truncateError('short')).toBe('short');
    const cut = truncateError('y'.repeat(MAX_ERROR_LENGTH + 1));
    expect(cut).toHaveLength(MAX_ERROR_LENGTH);
    expect(cut.endsWith('…')).toBe(true);
  });
});
