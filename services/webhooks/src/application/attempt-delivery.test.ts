import { sign } from '../domain/signature';
import type { AttemptResult } from '../domain/attempt-result';
import { makeAttemptDelivery } from './attempt-delivery';
import type { ClaimedDelivery, DeliveryOutcome, OutgoingRequest } from './ports';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const DAY = 86_400_000;

const claim = (overrides: Partial<ClaimedDelivery> = {}): ClaimedDelivery => ({
  id: 11,
  webhookId: 5,
  projectId: 7,
  eventId: '0b7e6c1e-2f6a-4d3b-9a51-6f1c2d3e4f50',
  subject: 'story:1',
  attempt: 1,
  leaseToken: 'lease',
  url: 'https://hooks.example.com/in?token=abc',
  secret: SECRET,
  body: '{"id":"0b7e6c1e-2f6a-4d3b-9a51-6f1c2d3e4f50"}',
  elapsedMs: 0,
  ...overrides,
});

function setup(answer: (request: OutgoingRequest) => AttemptResult | Promise<AttemptResult>) {
  const sent: OutgoingRequest[] = [];
  const finished: Array<{ result: AttemptResult; outcome: DeliveryOutcome }> = [];
  const logged: Array<{ level: string; details: object; message: string }> = [];
  const log = (level: string) => (details: object, message: string) =>
    logged.push({ level, details, message });
  const attempt = makeAttemptDelivery({
    deliveries: { finish: async (_claim, result, outcome) => void finished.push({ result, outcome }) },
    sender: {
      send: async (request) => {
        sent.push(request);
        return answer(request);
      },
    },
    retry: { initialMs: 5_000, maxMs: 3_600_000, giveUpAfterMs: DAY },
    userAgent: 'Flowboard-Webhooks/1.0',
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    random: () => 1,
  });
  return { attempt, sent, finished, logged };
}

const ok: AttemptResult = { ok: true, statusCode: 204, latencyMs: 9, error: '' };
const refused: AttemptResult = {
  ok: false,
  statusCode: 0,
  latencyMs: 2,
  error: 'connection refused by 1.2.3.4:443',
};

describe('attemptDelivery', () => {
  it('POSTs the stored body with a signature over this attempt’s timestamp, and records the success', async () => {
    const { attempt, sent, finished } = setup(() => ok);
    const before = Math.floor(Date.now() / 1000);
    await attempt(claim(), new AbortController().signal);
    const request = sent[0]!;
    expect(request.body).toBe(claim().body);
    expect(request.target.href).toBe('https://hooks.example.com/in?token=abc');
    const timestamp = Number(request.headers['webhook-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(request.headers).toMatchObject({
      'webhook-id': claim().eventId,
      'content-type': 'application/json',
      'user-agent': 'Flowboard-Webhooks/1.0',
    });
    expect(request.headers['webhook-signature']).toBe(
      sign(SECRET, { id: claim().eventId, timestamp, body: claim().body }),
    );
    expect(finished).toEqual([{ result: ok, outcome: { kind: 'succeeded' } }]);
  });

  it('schedules a retry after a failure, by the back-off of the attempt number', async () => {
    const { attempt, finished, logged } = setup(() => refused);
    await attempt(claim({ attempt: 3 }), new AbortController().signal);
    expect(finished).toEqual([{ result: refused, outcome: { kind: 'retry', inMs: 20_000 } }]);
    // Logged by origin only: the URL's query holds the receiver's token.
    expect(JSON.stringify(logged)).not.toContain('token=abc');
    expect(logged[0]).toMatchObject({
      level: 'debug',
      details: { origin: 'https://hooks.example.com', attempt: 3 },
    });
  });

  it('gives up once the window has passed, with the reason the webhook will show', async () => {
    const { attempt, finished, logged } = setup(() => ({
      ...refused,
      statusCode: 500,
      error: 'HTTP 500: boom',
    }));
    await attempt(claim({ attempt: 34, elapsedMs: DAY }), new AbortController().signal);
    expect(finished[0]!.outcome).toEqual({
      kind: 'give-up',
      failure: 'gave up after 34 attempts over 24 h; last error: HTTP 500: boom',
      disabledReason:
        'disabled after 24 h of failed deliveries to https://hooks.example.com: last error HTTP 500: boom',
    });
    expect(logged[0]).toMatchObject({ level: 'warn', details: { reason: undefined } }); // the receiver's text stays out
  });

  it('records nothing for an attempt aborted at shutdown (its lease hands it to another replica)', async () => {
    const controller = new AbortController();
    const { attempt, finished } = setup(() => {
      controller.abort();
      return { ...refused, error: 'aborted' };
    });
    await attempt(claim(), controller.signal);
    expect(finished).toEqual([]);
  });

  it('sends nothing when the secret cannot be opened, and says so without the secret', async () => {
    const { attempt, sent, finished, logged } = setup(() => ok);
    await attempt(claim({ secret: undefined }), new AbortController().signal);
    expect(sent).toEqual([]);
    expect(finished[0]!.result).toMatchObject({ ok: false, error: expect.stringMatching(/signing secret/) });
    expect(finished[0]!.outcome).toEqual({ kind: 'retry', inMs: 5_000 });
    expect(logged[0]).toMatchObject({ level: 'error' });
  });
});
