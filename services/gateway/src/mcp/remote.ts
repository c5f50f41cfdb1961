import { requestHeaders, type ApiAnswer, type ApiTransport } from './api-transport';

/** A gateway over HTTP(S), as one API key: what the stdio entry point's tools call (stdio.ts). */
export function remoteApi(baseUrl: string, apiKey: string): ApiTransport {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    async send(request): Promise<ApiAnswer> {
      const response = await fetch(`${base}${request.path}`, {
        method: request.method,
        headers: requestHeaders(apiKey, request),
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return { status: response.status, headers, body: await response.text() };
    },
  };
}
