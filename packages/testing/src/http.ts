/** A small HTTP client for end-to-end tests against the gateway. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON when the response is JSON, else undefined. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface ApiRequest {
  method?: string;
  key?: string;
  /** An object is sent as JSON; a string is sent as is (set content-type yourself). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiClientOptions {
  /**
   * Sees every response before the caller does; throwing fails the call (e.g. a contract check against the
   * OpenAPI document, see contract.ts).
   */
  onResponse?: (request: { method: string; path: string }, response: ApiResponse) => void | Promise<void>;
}

export function apiClient(baseUrl: string, options: ApiClientOptions = {}) {
  return async function call(path: string, request: ApiRequest = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...request.headers };
    if (request.key) headers['X-Zen-ApiKey'] = request.key;
    let body: RequestInit['body'];
    if (
      typeof request.body === 'string' ||
      request.body instanceof FormData ||
      request.body instanceof Uint8Array
    ) {
      body = request.body as RequestInit['body'];
    } else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(`${baseUrl}${path}`, { method: request.method ?? 'GET', headers, body });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const json = /json/.test(type) && text ? JSON.parse(text) : undefined;
    const response = { status: res.status, headers: res.headers, text, json };
    await options.onResponse?.({ method: request.method ?? 'GET', path }, response);
    return response;
  };
}
