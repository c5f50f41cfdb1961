import { SpanKind } from '@flowboard/service-kit';
import {
  apiClient,
  installInMemoryTracing,
  metricSamples,
  metricValue,
  traceparent,
  type InMemoryTracing,
} from '@flowboard/testing';
import type { App } from '../../src/app';
import { startHarness, type Harness } from './support/boot';

const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const CALLER_SPAN = 'eee19b7ec3c1b174';

let tracing: InMemoryTracing;
let h: Harness;
let gateway: { baseUrl: string; app: App };
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  tracing = installInMemoryTracing();
  h = await startHarness();
  gateway = await h.gateway();
  api = apiClient(gateway.baseUrl);
});
afterAll(async () => {
  await h.stop();
  await tracing.shutdown();
});

describe('gateway tracing', () => {
  it('continues the caller’s traceparent: HTTP server span → gRPC client span → upstream server span', async () => {
    const { key } = h.membership.addUser('Tobias Fünke');
    const res = await api('/api/v1/me', {
      key,
      headers: { traceparent: traceparent(TRACE_ID, CALLER_SPAN) },
    });
    expect(res.status).toBe(200);

    const inTrace = tracing.exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === TRACE_ID);
    const http = inTrace.find((s) => s.name === 'GET /api/v1/me');
    expect(http?.kind).toBe(SpanKind.SERVER);
    expect(http?.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(http?.attributes).toMatchObject({ 'http.route': '/api/v1/me', 'http.response.status_code': 200 });

    const auth = 'flowboard.membership.v1.MembershipService/AuthenticateApiKey';
    const client = inTrace.find((s) => s.name === auth && s.kind === SpanKind.CLIENT);
    const upstream = inTrace.find((s) => s.name === auth && s.kind === SpanKind.SERVER);
    expect(client?.parentSpanContext?.spanId).toBe(http?.spanContext().spanId);
    expect(upstream?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);

    // No key, query or address in any span.
    expect(JSON.stringify(inTrace.map((s) => s.attributes))).not.toContain(key);
  });
});

describe('gateway tracing, attachment streams', () => {
  it('carries the trace to the files service’s HTTP port too, as a child of the gateway’s server span', async () => {
    const { user, key } = h.membership.addUser('George Michael');
    const { project } = h.membership.addProject(user, 'Banana Stand');
    const story = await api(`/api/v1/projects/${project.id}/stories`, {
      key,
      method: 'POST',
      body: { text: 's' },
    });
    expect(story.status).toBe(200);
    const res = await api(`/api/v1/projects/${project.id}/stories/${story.json.id}/attachments`, {
      key,
      method: 'POST',
      body: new TextEncoder().encode(
        '--b\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nx\r\n--b--',
      ),
      headers: {
        'Content-Type': 'multipart/form-data; boundary=b',
        traceparent: traceparent(TRACE_ID, CALLER_SPAN),
      },
    });
    expect(res.status).toBe(200);

    const forwarded = h.files.received.at(-1)!.headers.traceparent;
    expect(forwarded).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    const parentSpanId = String(forwarded).split('-')[2];
    const server = tracing.exporter
      .getFinishedSpans()
      .find((s) => s.spanContext().traceId === TRACE_ID && s.name.startsWith('POST /api/v1/projects/'));
    expect(server?.spanContext().spanId).toBe(parentSpanId);
  });
});

describe('gateway metrics', () => {
  it('counts requests by route pattern, method and status on its own port, never by raw path', async () => {
    const { user, key } = h.membership.addUser('Lindsay Fünke');
    const { project } = h.membership.addProject(user, 'Fünke Family');
    expect((await api(`/api/v1/projects/${project.id}`, { key })).status).toBe(200);
    expect((await api(`/api/v1/projects/${project.id + 1000}/stories/77`, { key })).status).toBe(404);
    expect((await api('/api/v1/no/such/route/12345', { key })).status).toBe(404);
    expect((await api('/livez')).status).toBe(200);

    // Not on the API's port.
    const onApi = await api('/metrics');
    expect(onApi.status).not.toBe(200);
    expect(onApi.text).not.toContain('flowboard_http_requests_total');

    const text = await (await fetch(`http://127.0.0.1:${gateway.app.metricsPort()}/metrics`)).text();
    const requests = (labels: Record<string, string>) =>
      metricValue(text, 'flowboard_http_requests_total', { service: 'gateway', method: 'GET', ...labels });
    expect(requests({ route: '/api/v1/projects/:projectId', status: '200' })).toBe(1);
    expect(requests({ route: '/api/v1/projects/:projectId/stories/:storyId', status: '404' })).toBe(1);
    expect(requests({ route: 'unmatched', status: '404' })).toBe(1);
    expect(requests({ route: '/livez', status: '200' })).toBe(1);
    expect(
      metricValue(text, 'flowboard_http_request_duration_seconds_count', {
        route: '/api/v1/projects/:projectId',
        status: '200',
      }),
    ).toBe(1);
    // Routes are patterns: no id of this test appears in any label.
    const routes = metricSamples(text, 'flowboard_http_requests_total').map((s) => s.labels.route);
    for (const id of [String(project.id), '12345', '77']) expect(routes.join(' ')).not.toContain(id);

    expect(
      metricValue(text, 'flowboard_grpc_client_handled_total', {
        grpc_service: 'flowboard.membership.v1.MembershipService',
        grpc_method: 'GetProjectAccess',
        grpc_code: 'OK',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, 'nodejs_heap_size_used_bytes', { service: 'gateway' })).toBeGreaterThan(0);
  });
});
