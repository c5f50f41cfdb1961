import {
  metricSamples,
  metricValue,
  requireEnv,
  uniqueSuffix,
  waitFor,
  waitForMail,
} from '@flowboard/testing';
import { api, createProject, GATEWAY_URL, MAILPIT_URL, signUp } from './support';

/**
 * Every service's Prometheus endpoint on its own metrics port (not the API's), after real traffic through the
 * gateway: an upload, a story delete (boards' outbox → files' consumer) and an invite (membership's outbox →
 * the notifier's e-mail).
 */
jest.setTimeout(120_000);

const ports = requireEnv(
  'FLOWBOARD_GATEWAY_METRICS_PORT',
  'FLOWBOARD_MEMBERSHIP_METRICS_PORT',
  'FLOWBOARD_BOARDS_METRICS_PORT',
  'FLOWBOARD_FILES_METRICS_PORT',
  'FLOWBOARD_NOTIFIER_METRICS_PORT',
);
const scrape = async (port: string): Promise<string> => {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
};

beforeAll(async () => {
  const owner = await signUp('metrics');
  const project = await createProject(owner.key);
  const P = `/api/v1/projects/${project.id}`;
  const story = await api(`${P}/stories`, { method: 'POST', key: owner.key, body: { text: 'Counted' } });
  expect(story.status).toBe(200);
  const body = new FormData();
  body.append('attachment', new Blob([new Uint8Array(4096)], { type: 'application/octet-stream' }), 'm.bin');
  const uploaded = await api(`${P}/stories/${story.json.id}/attachments`, {
    method: 'POST',
    key: owner.key,
    body,
  });
  expect(uploaded.status).toBe(200);
  // The same page twice: a response-cache miss, then a hit.
  for (let i = 0; i < 2; i++) expect((await api(`${P}/stories`, { key: owner.key })).status).toBe(200);
  expect((await api(`${P}/stories/${story.json.id}`, { method: 'DELETE', key: owner.key })).status).toBe(200);
  const roles = await api(`${P}/roles?where=name:Members`, { key: owner.key });
  const email = `metrics-${uniqueSuffix()}@example.test`;
  const invited = await api(`${P}/invites`, {
    method: 'POST',
    key: owner.key,
    body: { email, role: roles.json.items[0].id },
  });
  expect(invited.status).toBe(200);
  await waitForMail(MAILPIT_URL, email, 60_000);
});

describe('/metrics of every service', () => {
  it('gateway: requests by route pattern, gRPC client calls, process metrics', async () => {
    const text = await scrape(ports.FLOWBOARD_GATEWAY_METRICS_PORT);
    expect(
      metricValue(text, 'flowboard_http_requests_total', {
        service: 'gateway',
        method: 'POST',
        route: '/api/v1/projects/:projectId/stories/:storyId/attachments',
        status: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
    const routes = metricSamples(text, 'flowboard_http_requests_total').map((s) => s.labels.route ?? '');
    expect(routes.every((r) => r === 'unmatched' || !/\/\d/.test(r))).toBe(true); // patterns, never ids
    expect(
      metricValue(text, 'flowboard_grpc_client_handled_total', {
        grpc_service: 'flowboard.membership.v1.MembershipService',
        grpc_method: 'CreateInvite',
        grpc_code: 'OK',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, 'process_cpu_seconds_total', { service: 'gateway' })).toBeGreaterThan(0);
    for (const outcome of ['miss', 'hit']) {
      expect(
        metricValue(text, 'flowboard_response_cache_lookups_total', { service: 'gateway', outcome }),
      ).toBeGreaterThanOrEqual(1);
    }
    expect(metricValue(text, 'flowboard_response_cache_bytes', { service: 'gateway' })).toBeGreaterThan(0);
    // The API's own port does not serve them (plain fetch: the path is not in the contract).
    expect(await (await fetch(`${GATEWAY_URL}/metrics`)).text()).not.toContain(
      'flowboard_http_requests_total',
    );
  });

  it('membership and boards: gRPC calls served, pool, outbox backlog', async () => {
    for (const [service, port, method] of [
      ['membership', ports.FLOWBOARD_MEMBERSHIP_METRICS_PORT, 'CreateInvite'],
      ['boards', ports.FLOWBOARD_BOARDS_METRICS_PORT, 'DeleteStory'],
    ] as const) {
      const text = await scrape(port);
      expect(
        metricValue(text, 'flowboard_grpc_server_handled_total', {
          service,
          grpc_method: method,
          grpc_code: 'OK',
        }),
      ).toBeGreaterThanOrEqual(1);
      expect(metricValue(text, 'flowboard_grpc_server_handling_seconds_count', { service })).toBeGreaterThan(
        0,
      );
      expect(metricValue(text, 'flowboard_pg_pool_size', { service })).toBeGreaterThan(0);
      expect(metricValue(text, 'flowboard_pg_pool_idle', { service })).toBeGreaterThanOrEqual(0);
      expect(metricValue(text, 'flowboard_pg_pool_waiting', { service })).toBeGreaterThanOrEqual(0);
      expect(metricValue(text, 'flowboard_outbox_backlog', { service })).toBeGreaterThanOrEqual(0);
    }
  });

  it('files: storage bytes, gRPC, pool and its consumer’s lag once the story delete is consumed', async () => {
    const text = await waitFor(
      async () => {
        const t = await scrape(ports.FLOWBOARD_FILES_METRICS_PORT);
        return metricSamples(t, 'flowboard_kafka_consumer_lag').some(
          (s) => s.labels.topic === 'boards.story-deleted.v1' && s.labels.group === 'files',
        )
          ? t
          : undefined;
      },
      30_000,
      'files to consume the story delete',
    );
    expect(
      metricValue(text, 'flowboard_files_storage_bytes', { service: 'files', kind: 'used' }),
    ).toBeGreaterThanOrEqual(0);
    expect(
      metricValue(text, 'flowboard_files_storage_bytes', { service: 'files', kind: 'reserved' }),
    ).toBeGreaterThanOrEqual(0);
    expect(metricValue(text, 'flowboard_pg_pool_size', { service: 'files' })).toBeGreaterThan(0);
    expect(metricValue(text, 'nodejs_eventloop_lag_seconds', { service: 'files' })).toBeGreaterThanOrEqual(0);
  });

  it('boards, files and notifier: each is a member of its consumer group', async () => {
    for (const [group, port] of [
      ['boards', ports.FLOWBOARD_BOARDS_METRICS_PORT],
      ['files', ports.FLOWBOARD_FILES_METRICS_PORT],
      ['notifier', ports.FLOWBOARD_NOTIFIER_METRICS_PORT],
    ] as const) {
      // A rebalance (another test restarts Kafka) shows 0 for a few seconds.
      await waitFor(
        async () =>
          metricValue(await scrape(port), 'flowboard_kafka_consumer_joined', { service: group, group }) === 1
            ? true
            : undefined,
        30_000,
        `${group} joined`,
      );
    }
  });

  it('notifier: e-mails sent and its consumer’s lag', async () => {
    const text = await scrape(ports.FLOWBOARD_NOTIFIER_METRICS_PORT);
    expect(
      metricValue(text, 'flowboard_notifier_emails_sent_total', { service: 'notifier' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metricValue(text, 'flowboard_notifier_emails_failed_total', { service: 'notifier' }),
    ).toBeGreaterThanOrEqual(0);
    expect(
      metricSamples(text, 'flowboard_kafka_consumer_lag').some(
        (s) => s.labels.group === 'notifier' && s.labels.topic === 'membership.invite-created.v1',
      ),
    ).toBe(true);
  });
});
