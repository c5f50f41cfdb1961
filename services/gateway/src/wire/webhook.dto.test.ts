import type { webhooks } from '@flowboard/proto';
import { deliveryDto, toJson, webhookDto } from '@flowboard/representation';
import { toXml } from './xml';

const webhook = (over: Partial<webhooks.Webhook__Output> = {}): webhooks.Webhook__Output => ({
  id: 7,
  project_id: 1,
  url: 'https://hooks.example.com/flowboard?token=abc',
  event_types: ['story.created', 'story.moved'],
  active: true,
  description: 'CI <bridge>',
  disabled_reason: '',
  created_at: '2026-11-24T10:00:00',
  updated_at: '2026-11-24T10:05:00',
  ...over,
});

const attempt = (over: Partial<webhooks.DeliveryAttempt__Output> = {}): webhooks.DeliveryAttempt__Output => ({
  attempt: 1,
  status: 'succeeded',
  response_status_code: 204,
  latency_ms: 42,
  error: '',
  attempted_at: '2026-11-24T10:06:00',
  ...over,
});

const delivery = (over: Partial<webhooks.Delivery__Output> = {}): webhooks.Delivery__Output => ({
  id: 90,
  webhook_id: 7,
  event_id: '3f1c2b9e-0000-4000-8000-000000000001',
  event_type: 'story.created',
  attempt: 2,
  status: 'pending',
  response_status_code: 503,
  latency_ms: 120,
  error: 'HTTP 503',
  attempted_at: '2026-11-24T10:07:00',
  next_attempt_at: '2026-11-24T10:07:20',
  created_at: '2026-11-24T10:06:00',
  attempts: [
    attempt({ attempt: 2, status: 'failed', response_status_code: 503, latency_ms: 120, error: 'HTTP 503' }),
    attempt({
      attempt: 1,
      status: 'failed',
      response_status_code: 0,
      latency_ms: 10_000,
      error: 'timed out',
    }),
  ],
  ...over,
});

describe('webhook DTO', () => {
  it('keeps its JSON key order; the secret only when given, last', () => {
    expect(Object.keys(webhookDto(webhook()))).toEqual([
      'id',
      'url',
      'eventTypes',
      'active',
      'description',
      'disabledReason',
      'createTime',
      'updateTime',
      'secret',
    ]);
    expect(toJson(webhookDto(webhook()))).toBe(
      '{"id":7,"url":"https://hooks.example.com/flowboard?token=abc",' +
        '"eventTypes":["story.created","story.moved"],"active":true,"description":"CI <bridge>",' +
        '"createTime":"2026-11-24T10:00:00","updateTime":"2026-11-24T10:05:00"}',
    );
    expect(JSON.parse(toJson(webhookDto(webhook(), 'whsec_AAAA'))).secret).toBe('whsec_AAAA');
  });

  it('shows disabledReason only while the service has disabled it', () => {
    const disabled = webhookDto(webhook({ active: false, disabled_reason: 'disabled after 24 h' }));
    expect(JSON.parse(toJson(disabled))).toMatchObject({
      active: false,
      disabledReason: 'disabled after 24 h',
    });
    expect(toJson(webhookDto(webhook({ active: false })))).not.toContain('disabledReason');
  });

  it('XML: alphabetical children, eventTypes as repeated <eventType>, empty values as empty elements', () => {
    expect(toXml('webhook', webhookDto(webhook()))).toBe(
      '<?xml version="1.0" encoding="utf-8"?><webhook><active>true</active>' +
        '<createTime>2026-11-24T10:00:00</createTime><description>CI &lt;bridge&gt;</description>' +
        '<eventTypes><eventType>story.created</eventType><eventType>story.moved</eventType></eventTypes>' +
        '<id>7</id><updateTime>2026-11-24T10:05:00</updateTime>' +
        '<url>https://hooks.example.com/flowboard?token=abc</url></webhook>',
    );
    const all = toXml('webhook', webhookDto(webhook({ event_types: [], description: '' }), 'whsec_AAAA'));
    expect(all).toContain('<description /><eventTypes /><id>7</id><secret>whsec_AAAA</secret>');
  });
});

describe('delivery DTO', () => {
  it('keeps its JSON key order, with the attempts newest first', () => {
    const dto = deliveryDto(delivery());
    expect(Object.keys(dto)).toEqual([
      'id',
      'eventId',
      'eventType',
      'attempt',
      'status',
      'responseStatusCode',
      'latencyMs',
      'error',
      'attemptedAt',
      'nextAttemptAt',
      'createTime',
      'attempts',
    ]);
    expect(JSON.parse(toJson(dto)).attempts).toEqual([
      {
        attempt: 2,
        status: 'failed',
        responseStatusCode: 503,
        latencyMs: 120,
        error: 'HTTP 503',
        attemptedAt: '2026-11-24T10:06:00',
      },
      // No response came back: no status code.
      {
        attempt: 1,
        status: 'failed',
        latencyMs: 10_000,
        error: 'timed out',
        attemptedAt: '2026-11-24T10:06:00',
      },
    ]);
  });

  it('omits what no attempt produced yet: before the first attempt only the event and its state', () => {
    const queued = delivery({
      attempt: 0,
      response_status_code: 0,
      latency_ms: 0,
      error: '',
      attempted_at: '',
      next_attempt_at: '',
      attempts: [],
    });
    expect(JSON.parse(toJson(deliveryDto(queued)))).toEqual({
      id: 90,
      eventId: '3f1c2b9e-0000-4000-8000-000000000001',
      eventType: 'story.created',
      attempt: 0,
      status: 'pending',
      createTime: '2026-11-24T10:06:00',
      attempts: [],
    });
    const succeeded = deliveryDto(
      delivery({ status: 'succeeded', error: '', next_attempt_at: '', response_status_code: 200 }),
    );
    expect(JSON.parse(toJson(succeeded))).not.toHaveProperty('error');
    expect(JSON.parse(toJson(succeeded))).not.toHaveProperty('nextAttemptAt');
  });

  it('XML: attempts as repeated <attempt> elements inside <attempts>, children alphabetical', () => {
    const xml = toXml('delivery', deliveryDto(delivery()));
    expect(xml).toMatch(/^<\?xml[^>]*\?><delivery><attempt>2<\/attempt><attemptedAt>/);
    expect(xml).toContain(
      '<attempts><attempt><attempt>2</attempt><attemptedAt>2026-11-24T10:06:00</attemptedAt>' +
        '<error>HTTP 503</error><latencyMs>120</latencyMs><responseStatusCode>503</responseStatusCode>' +
        '<status>failed</status></attempt><attempt><attempt>1</attempt>',
    );
    expect(xml).toContain('</attempts><createTime>2026-11-24T10:06:00</createTime><error>HTTP 503</error>');
  });
});
