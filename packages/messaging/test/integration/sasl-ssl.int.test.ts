import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { Network, Wait, type StartedNetwork, type StartedTestContainer } from 'testcontainers';
import {
  LoopbackContainer,
  REPO_ROOT,
  RUN_LABEL,
  infrastructureImages,
  removeRun,
} from '@flowboard/testing/containers';
import { createLogger } from '@flowboard/service-kit';
import { createKafka, ensureTopics } from '../../src';

// A Kafka as production runs it and as the cluster test's host runs it (deploy/local/infra.sh with
// FLOWBOARD_INFRA_SECURE=1): one SASL_SSL listener for clients, SCRAM users written at format time, the server
// certificate from the same openssl recipe (deploy/local/lib.sh's infra_server_cert), and the broker's own
// configuration from deploy/local/kafka/server*.properties. Its own container (the shared Kafka of this run is
// plaintext), so it needs the container engine: on npm test's native fallback there is none, and the test says so.
const run = process.env.DOCKER_HOST ? describe : describe.skip;
if (!process.env.DOCKER_HOST)
  console.warn('sasl-ssl.int.test.ts skipped: no container engine (DOCKER_HOST unset, the native fallback)');

const exec = promisify(execFile);
const USER = 'flowboard';
const PASSWORD = 'sasl-ssl-test-password';
const STARTER = '/tmp/flowboard-start.sh';
const CLIENT_PORT = 9094;
const logger = createLogger('messaging-sasl-test', 'silent');
const runId = `messaging-sasl-${Date.now().toString(36)}`;

let home: string;
let network: StartedNetwork | undefined;
let container: StartedTestContainer | undefined;
let brokers: string[];
let caPem: string;

/** A client as a service makes it (createKafka), over TLS as USER with the given SCRAM mechanism. */
const scramKafka = (mechanism: 'scram-sha-256' | 'scram-sha-512') =>
  createKafka({
    brokers,
    clientId: `sasl-ssl-test-${mechanism}`,
    logger,
    tls: true,
    sasl: { mechanism, username: USER, password: PASSWORD },
  });

/** kafkajs without retries: a refused connection fails at once instead of backing off for half a minute. */
const bareClient = (options: { ssl: boolean; sasl?: SASLOptions }) =>
  new Kafka({
    clientId: 'sasl-ssl-negative',
    brokers,
    ssl: options.ssl,
    sasl: options.sasl,
    connectionTimeout: 3_000,
    requestTimeout: 5_000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });

async function listTopics(kafka: Kafka): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await admin.listTopics();
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

run('Kafka requiring SASL/SCRAM over TLS (infra.sh secure mode configuration)', () => {
  beforeAll(async () => {
    const host = process.env.TESTCONTAINERS_HOST_OVERRIDE ?? '127.0.0.1';
    home = mkdtempSync(path.join(os.tmpdir(), 'flowboard-sasl-'));
    // The cluster's certificate recipe: SAN IP:<host>, IP:127.0.0.1, DNS:localhost.
    const { stdout } = await exec(
      'bash',
      ['-c', 'source deploy/local/lib.sh && infra_server_cert kafka >/dev/null && infra_ca'],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, FLOWBOARD_HOME: home, FLOWBOARD_INFRA_HOST: isIP(host) ? host : '127.0.0.1' },
      },
    );
    caPem = readFileSync(stdout.trim(), 'utf8');
    const fill = (text: string) =>
      text
        .replaceAll('@RUN@', '/tmp/run')
        .replaceAll('@HOST@', '0.0.0.0')
        .replaceAll('@PORT@', String(CLIENT_PORT))
        .replaceAll('@CONTROLLER_PORT@', '9093')
        .replaceAll('@INTERNAL_PORT@', '19092')
        .replaceAll('@KEYSTORE@', '/tmp/kafka.pem');
    const properties =
      fill(readFileSync(path.join(REPO_ROOT, 'deploy/local/kafka/server.properties'), 'utf8')) +
      fill(readFileSync(path.join(REPO_ROOT, 'deploy/local/kafka/server-secure.properties'), 'utf8'));

    // The advertised address is the published port, known once the container runs: it waits for the starter.
    // A network of its own: our engine has no default bridge (@flowboard/testing's containers do the same).
    network = await new Network().start();
    container = await new LoopbackContainer(
      infrastructureImages().kafka,
      ['localhost', '127.0.0.1'].includes(host),
    )
      .withNetwork(network)
      .withLabels({ [RUN_LABEL]: runId })
      .withEntrypoint(['sh', '-c'])
      .withCommand([
        `echo 'waiting for the starter'; while [ ! -f ${STARTER} ]; do sleep 0.1; done; exec sh ${STARTER}`,
      ])
      .withExposedPorts(CLIENT_PORT)
      .withWaitStrategy(Wait.forLogMessage(/waiting for the starter/))
      .withStartupTimeout(120_000)
      .start();
    const address = `${container.getHost()}:${container.getMappedPort(CLIENT_PORT)}`;
    brokers = [address];
    const scram = (m: string) => `--add-scram '${m}=[name=${USER},password=${PASSWORD}]'`;
    await container.copyContentToContainer([
      { content: readFileSync(path.join(home, 'pki/kafka.pem'), 'utf8'), target: '/tmp/kafka.pem' },
      {
        content: `${properties}\nadvertised.listeners=SASL_SSL://${address},INTERNAL://127.0.0.1:19092\n`,
        target: '/tmp/server.properties',
      },
      {
        // infra.sh's format and start, with the image's jars.
        content: [
          'set -e',
          "cp='/opt/kafka/libs/*'",
          'log=-Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties',
          `java -cp "$cp" "$log" kafka.tools.StorageTool format -t 5L6g3nShT-eMCtK--X86sw -c /tmp/server.properties ${scram('SCRAM-SHA-512')} ${scram('SCRAM-SHA-256')}`,
          'exec java -Xmx512m -Xms256m -cp "$cp" "$log" kafka.Kafka /tmp/server.properties',
        ].join('\n'),
        target: STARTER,
      },
    ]);
    // npm start's readiness probe, as infra.sh runs it in secure mode: over SASL_SSL, the CA through
    // NODE_EXTRA_CA_CERTS.
    await exec(process.execPath, [path.join(REPO_ROOT, 'deploy/local/kafka/ready.js')], {
      env: {
        ...process.env,
        KAFKA_BROKERS: address,
        KAFKA_READY_TIMEOUT_MS: '120000',
        KAFKA_TLS: 'true',
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: USER,
        KAFKA_SASL_PASSWORD: PASSWORD,
        NODE_EXTRA_CA_CERTS: path.join(home, 'pki/ca.crt'),
      },
    });
  }, 240_000);

  afterAll(async () => {
    await container?.stop().catch(() => undefined);
    await removeRun(runId).catch(() => undefined);
    await network?.stop().catch(() => undefined);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  // Before the CA is trusted in this process (the next test adds it).
  it('refuses TLS from a client that does not trust the CA', async () => {
    await expect(
      listTopics(
        bareClient({ ssl: true, sasl: { mechanism: 'scram-sha-512', username: USER, password: PASSWORD } }),
      ),
    ).rejects.toThrow(/certificate/i);
  });

  it('serves a client with the CA in its trust store (as NODE_EXTRA_CA_CERTS puts it), over SCRAM-SHA-512', async () => {
    // What NODE_EXTRA_CA_CERTS does at start, done in this process: the CA joins the default CAs of tls.connect,
    // which kafkajs uses (no `ca` option anywhere in @flowboard/messaging).
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), caPem]);
    const kafka = scramKafka('scram-sha-512');
    const topic = `sasl-ssl-${Date.now().toString(36)}`;
    await ensureTopics(kafka, [topic], { partitions: 1, replicationFactor: 1 });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'k', value: 'over SASL_SSL' }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: `${topic}-group` });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    const value = await new Promise<string>((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => resolve(String(message.value)) });
    });
    await consumer.disconnect();
    expect(value).toBe('over SASL_SSL');
  }, 60_000);

  it('serves SCRAM-SHA-256 too (the user has both)', async () => {
    const kafka = scramKafka('scram-sha-256');
    expect(await listTopics(kafka)).toEqual(expect.any(Array));
  }, 60_000);

  it('refuses a wrong password, no SASL and plaintext', async () => {
    await expect(
      listTopics(
        bareClient({ ssl: true, sasl: { mechanism: 'scram-sha-512', username: USER, password: 'wrong' } }),
      ),
    ).rejects.toThrow(/SASL|authentication/i);
    await expect(listTopics(bareClient({ ssl: true }))).rejects.toThrow();
    await expect(listTopics(bareClient({ ssl: false }))).rejects.toThrow();
  }, 60_000);
});
