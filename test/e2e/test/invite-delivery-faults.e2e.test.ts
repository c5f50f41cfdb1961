import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { requireEnv, uniqueSuffix, waitFor } from '@flowboard/testing';
import { waitUntilEveryConsumerCaughtUp } from './consumers';
import { api, createProject, MAILPIT_URL, signUp, type SignedUp } from './support';

/**
 * Invite e-mail under faults, against the real stack (issue "Identity and access", Tests): Kafka down while 50
 * invites are created, the notifier SIGKILLed in the middle of a batch, the mail server unreachable. Each case
 * ends with every e-mail delivered exactly once. Components are stopped and started through the scripts
 * `npm test` started them with; afterAll puts back whatever a failed test left down.
 */
jest.setTimeout(240_000);

const { FLOWBOARD_HOME, FLOWBOARD_NOTIFIER_PORT } = requireEnv('FLOWBOARD_HOME', 'FLOWBOARD_NOTIFIER_PORT');
// Asynchronous on purpose: a blocked event loop would keep the HTTP client from noticing keep-alive
// connections the gateway closed meanwhile, and the next request would fail on one.
const script = (name: string, ...args: string[]) =>
  promisify(execFile)('bash', [path.resolve(__dirname, `../../../deploy/local/${name}.sh`), ...args], {
    env: { ...process.env, FLOWBOARD_HOME },
    timeout: 150_000,
  });
const infra = (...args: string[]) => script('infra', ...args);
const services = (...args: string[]) => script('services', ...args);

const notifierReady = async () => {
  try {
    return (await fetch(`http://127.0.0.1:${FLOWBOARD_NOTIFIER_PORT}/readyz`)).status === 200;
  } catch {
    return false;
  }
};

/** The Message-IDs of the e-mails delivered to each recipient containing `tag`. */
async function deliveredIds(tag: string): Promise<Map<string, string[]>> {
  const res = await fetch(`${MAILPIT_URL}/api/v1/search?query=${encodeURIComponent(`to:${tag}`)}&limit=1000`);
  if (!res.ok) throw new Error(`mail search failed: ${res.status}`);
  const { messages } = (await res.json()) as {
    messages: Array<{ MessageID: string; To: Array<{ Address: string }> }>;
  };
  const ids = new Map<string, string[]>();
  for (const m of messages)
    for (const to of m.To) ids.set(to.Address, [...(ids.get(to.Address) ?? []), m.MessageID]);
  return ids;
}

/** Delivered e-mails per recipient, for every recipient containing `tag`. */
async function deliveries(tag: string): Promise<Map<string, number>> {
  return new Map([...(await deliveredIds(tag))].map(([address, ids]) => [address, ids.length]));
}

/** Waits until each address has at least one e-mail; returns the counts then. */
const allDelivered = (tag: string, addresses: string[], timeoutMs: number) =>
  waitFor(
    async () => {
      const counts = await deliveries(tag).catch(() => new Map<string, number>()); // the sink may be restarting
      return addresses.every((a) => counts.has(a)) ? counts : undefined;
    },
    timeoutMs,
    `${addresses.length} e-mails to *${tag}*`,
  );

/**
 * Exactly once: after everything arrived, one more invite on the same project (same partition, so it is
 * handled after any redelivery of the earlier ones) is the marker that the notifier is done with them.
 */
async function expectExactlyOnce(board: Board, tag: string, addresses: string[]) {
  const counts = await deliveriesAfterMarker(board, tag);
  const wrong = addresses.filter((a) => counts.get(a) !== 1).map((a) => `${a}: ${counts.get(a) ?? 0}`);
  expect(wrong).toEqual([]);
}

async function deliveriesAfterMarker(board: Board, tag: string): Promise<Map<string, number>> {
  const marker = await board.invite(`${tag}-marker`);
  await allDelivered(tag, [marker], 60_000);
  return deliveries(tag);
}

interface Board {
  owner: SignedUp;
  invite(local: string): Promise<string>;
}

async function board(name: string): Promise<Board> {
  const owner = await signUp(name);
  const project = await createProject(owner.key);
  const roles = await api(`/api/v1/projects/${project.id}?with=roles`, { key: owner.key });
  const role = roles.json.roles.find((r: { name: string }) => r.name === 'Members').id as number;
  return {
    owner,
    async invite(local) {
      const email = `${local}@example.test`;
      const res = await api(`/api/v1/projects/${project.id}/invites`, {
        method: 'POST',
        key: owner.key,
        body: { email, role },
      });
      if (res.status !== 200) throw new Error(`invite ${email}: ${res.status} ${res.text}`);
      return email;
    },
  };
}

/** `n` invites, 10 at a time; their addresses. */
async function inviteMany(b: Board, tag: string, n: number): Promise<string[]> {
  const addresses: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, (_, j) => b.invite(`${tag}-${i + j}`));
    addresses.push(...(await Promise.all(batch)));
  }
  return addresses;
}

afterAll(async () => {
  // Whatever a failed test left stopped: start is a no-op for what runs.
  await infra('start', 'kafka', 'mail');
  await services('start');
  await waitFor(async () => ((await notifierReady()) ? true : undefined), 60_000, 'notifier readiness');
  // Kafka was restarted: boards and files must consume again before the files after this one rely on them.
  await waitUntilEveryConsumerCaughtUp(90_000);
});

it('Kafka down while 50 invites are created: every e-mail arrives exactly once after it is back', async () => {
  const b = await board('fault-kafka');
  const tag = `fk${uniqueSuffix()}`;
  await infra('stop', 'kafka');
  let addresses: string[];
  try {
    addresses = await inviteMany(b, tag, 50); // all 200: the outbox holds the events
    expect((await deliveries(tag)).size).toBe(0);
  } finally {
    await infra('start', 'kafka');
  }
  await allDelivered(tag, addresses, 120_000);
  await expectExactlyOnce(b, tag, addresses);
});

it('the notifier killed (SIGKILL) in the middle of a batch: after its restart no e-mail is lost, only the one in flight may be doubled, as the same message', async () => {
  const b = await board('fault-kill');
  const tag = `fn${uniqueSuffix()}`;
  const pid = Number(readFileSync(path.join(FLOWBOARD_HOME, 'run', 'notifier.pid'), 'utf8').trim());
  // Freeze the notifier while the batch piles up, so the kill lands while it works through it.
  process.kill(pid, 'SIGSTOP');
  let addresses: string[];
  try {
    addresses = await inviteMany(b, tag, 50);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  // Kill as soon as the first e-mails are out: polled tightly, since the whole batch takes about a second.
  let sentAtKill = 0;
  try {
    const deadline = Date.now() + 60_000;
    while (sentAtKill < 3 && Date.now() < deadline) {
      sentAtKill = (await deliveries(tag)).size;
      if (sentAtKill < 3) await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    process.kill(pid, 'SIGKILL');
  }
  expect(sentAtKill).toBeGreaterThanOrEqual(3);
  expect(sentAtKill).toBeLessThan(50);

  await services('start'); // starts what is not running: the notifier, which rejoins the group
  await allDelivered(tag, addresses, 120_000);
  // Nothing lost, and every e-mail exactly once but possibly the one in flight at the kill: when the mail
  // server has accepted it and the process dies before recording that, the redelivery sends it again. No
  // protocol closes that gap (SMTP has no idempotency; the kill above is timed to land in it: it fires when an
  // e-mail shows up in the mail server). What the notifier guarantees is that the copies are the same e-mail,
  // one Message-ID per invite event, which mail clients and providers collapse.
  const counts = await deliveriesAfterMarker(b, tag);
  expect(addresses.filter((a) => !counts.has(a))).toEqual([]);
  const doubled = addresses.filter((a) => counts.get(a) !== 1);
  expect(doubled.length).toBeLessThanOrEqual(1);
  const ids = await deliveredIds(tag);
  for (const address of doubled) {
    expect(ids.get(address)).toHaveLength(2);
    expect(new Set(ids.get(address)).size).toBe(1);
  }
  // Every invite's e-mail carries its own event's Message-ID.
  expect(new Set(addresses.map((a) => ids.get(a)![0])).size).toBe(addresses.length);
});

it('the mail server unreachable: sends are retried (not ready meanwhile) and delivered once it is back', async () => {
  const b = await board('fault-smtp');
  const tag = `fs${uniqueSuffix()}`;
  await infra('stop', 'mail');
  let addresses: string[];
  try {
    addresses = await inviteMany(b, tag, 5);
    // The notifier waits out the outage with the partition paused, and says so on /readyz.
    await waitFor(async () => ((await notifierReady()) ? undefined : true), 60_000, 'notifier not ready');
  } finally {
    await infra('start', 'mail');
  }
  await allDelivered(tag, addresses, 60_000);
  await waitFor(async () => ((await notifierReady()) ? true : undefined), 30_000, 'notifier ready again');
  await expectExactlyOnce(b, tag, addresses);
});
