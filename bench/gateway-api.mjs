// The benchmarks' one way to call the gateway's API: JSON in and out, the key in X-Zen-ApiKey, anything but a 2xx
// thrown with its status and the start of its body.

/** `api(path, {method, key, body})` against `baseUrl`: the answer's JSON, or undefined for an empty body. */
export function gatewayApi(baseUrl) {
  return async function api(path, { method = 'GET', key, body } = {}) {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...(key ? { 'X-Zen-ApiKey': key } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status < 200 || res.status > 299)
      throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  };
}
