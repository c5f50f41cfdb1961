/**
 * How the MCP tools reach the API: a request in, the answer out, always in JSON and always as one API key. The tools
 * never call a service or a handler themselves, so every tool call runs the whole API pipeline (authentication, the
 * key's scopes, rate limits, access, Idempotency-Key, If-Match) exactly as any client's request would. Two ways to
 * get there, one tool code: into the gateway's own app in memory (`/mcp`, in-process.ts) or over HTTP to a gateway
 * (the stdio entry point, remote.ts).
 */
export interface ApiTransport {
  send(request: ApiRequest): Promise<ApiAnswer>;
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path with its query string: `/api/v1/projects/3/stories?with=tags`. */
  path: string;
  /** Beyond the key and the JSON `Accept`/`Content-Type`, which the transport sets. */
  headers?: Readonly<Record<string, string>>;
  /** Sent as JSON; undefined sends no body. */
  body?: unknown;
}

export interface ApiAnswer {
  status: number;
  /** Lower-case names. */
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
}

/** The answer's body as JSON, or undefined when it is empty or not JSON. */
export function answerJson(answer: ApiAnswer): unknown {
  if (answer.body.trim() === '') return undefined;
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    return undefined;
  }
}

/** The headers every request of a transport carries: the caller's key (when there is one) and JSON both ways. */
export function requestHeaders(apiKey: string | undefined, request: ApiRequest): Record<string, string> {
  return {
    accept: 'application/json',
    ...(apiKey !== undefined ? { 'x-zen-apikey': apiKey } : {}),
    ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...request.headers,
  };
}
