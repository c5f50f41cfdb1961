import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { GenericContainer, Wait, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers';
import { REPO_ROOT, infrastructureImages, type Infrastructure } from './images';
import { RUN_LABEL, removeRun, watchRun } from './cleanup';

/** What a piece of infrastructure gives the tests: the variables of deploy/local/infra.sh's infra.env. */
export const ENDPOINT_VARIABLES: Record<Infrastructure, readonly string[]> = {
  postgres: [
    'PG_ADMIN_URL',
    'BOARDS_DATABASE_URL',
    'MEMBERSHIP_DATABASE_URL',
    'FILES_DATABASE_URL',
    'WEBHOOKS_DATABASE_URL',
  ],
  redis: ['REDIS_URL'],
  kafka: ['KAFKA_BROKERS'],
  minio: ['S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET'],
  mailpit: ['SMTP_URL', 'MAILPIT_URL'],
};

export interface StartedInfrastructure {
  runId: string;
  /** The endpoints, under the names of ENDPOINT_VARIABLES. */
  env: Record<string, string>;
  /** What was started, one line each (image and published ports), for the test log. */
  summary: string[];
  /** Removes every container and the network of this run. */
  stop(): Promise<void>;
}

const S3 = {
  region: 'us-east-1',
  accessKey: 'flowboard',
  secretKey: 'flowboard-secret',
  bucket: 'flowboard-attachments',
};
const KAFKA_STARTER = '/tmp/flowboard-start.sh';
const STARTUP_TIMEOUT_MS = 120_000;

/** The endpoints a container gives, and its published ports as "host port → container port" for the log. */
type Started = [Record<string, string>, string];
const published = (c: StartedTestContainer, ...ports: number[]) =>
  ports.map((p) => `${c.getHost()}:${c.getMappedPort(p)} → ${p}`).join(', ');

/** A container whose published ports listen on this host's loopback only, not on every interface. */
export class LoopbackContainer extends GenericContainer {
  constructor(
    image: string,
    private readonly loopbackOnly: boolean,
  ) {
    super(image);
  }

  protected override async beforeContainerCreated(): Promise<void> {
    if (!this.loopbackOnly) return;
    for (const bindings of Object.values(this.hostConfig.PortBindings ?? {}))
      for (const binding of bindings as Array<{ HostIp?: string }>) binding.HostIp = '127.0.0.1';
  }
}

/**
 * Starts the infrastructure asked for, each piece in a container of its own on random host ports, all on one
 * network of this run, configured as deploy/compose.yaml configures them (so the official images and our local
 * stand-ins both serve). Containers start in parallel; a failure removes whatever did start.
 */
export async function startInfrastructure(wanted: readonly Infrastructure[]): Promise<StartedInfrastructure> {
  const runId = randomUUID();
  const docker = new Docker();
  const images = infrastructureImages();
  const client = await getContainerRuntimeClient();
  const host = client.info.containerRuntime.host;
  const loopbackOnly = ['localhost', '127.0.0.1', '::1'].includes(host);
  const labels = { [RUN_LABEL]: runId };
  watchRun(runId);
  try {
    const network = await docker.createNetwork({ Name: `flowboard-test-${runId}`, Labels: labels });
    const container = (name: Infrastructure) =>
      new LoopbackContainer(images[name], loopbackOnly)
        .withNetworkMode(network.id)
        .withLabels(labels)
        .withStartupTimeout(STARTUP_TIMEOUT_MS);
    const starters: Record<Infrastructure, () => Promise<Started>> = {
      postgres: async () => {
        const pg = await container('postgres')
          .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_DB: 'flowboard' })
          .withCopyFilesToContainer([
            {
              source: path.join(REPO_ROOT, 'deploy/compose/postgres-init.sql'),
              target: '/docker-entrypoint-initdb.d/10-flowboard.sql',
            },
          ])
          // Throw-away data, as npm test's native stack: durability off for speed.
          .withCommand([
            'postgres',
            '-c',
            'fsync=off',
            '-c',
            'synchronous_commit=off',
            '-c',
            'full_page_writes=off',
          ])
          .withExposedPorts(5432)
          // Over TCP, as compose's health check: during the init scripts the server listens on its socket only.
          .withWaitStrategy(Wait.forSuccessfulCommand('pg_isready -h 127.0.0.1 -U postgres -d flowboard'))
          .start();
        const at = (role: string) => `postgresql://${role}@${host}:${pg.getMappedPort(5432)}/flowboard`;
        return [
          {
            PG_ADMIN_URL: at('postgres'),
            BOARDS_DATABASE_URL: at('boards'),
            MEMBERSHIP_DATABASE_URL: at('membership'),
            FILES_DATABASE_URL: at('files'),
            WEBHOOKS_DATABASE_URL: at('webhooks'),
          },
          published(pg, 5432),
        ];
      },
      redis: async () => {
        const redis = await container('redis')
          .withCommand(['redis-server', '--save', '', '--appendonly', 'no'])
          .withExposedPorts(6379)
          .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
          .start();
        return [{ REDIS_URL: `redis://${host}:${redis.getMappedPort(6379)}` }, published(redis, 6379)];
      },
      kafka: async () => {
        // The advertised address is the published port, known only once the container runs: the container waits
        // for a starter script that exports it, then runs the image's own start (the way @testcontainers/kafka
        // does it for Confluent's images).
        const kafka = await container('kafka')
          .withEnvironment({
            KAFKA_NODE_ID: '1',
            KAFKA_PROCESS_ROLES: 'broker,controller',
            KAFKA_LISTENERS: 'PLAINTEXT://:9092,INTERNAL://:19092,CONTROLLER://:9093',
            KAFKA_INTER_BROKER_LISTENER_NAME: 'INTERNAL',
            KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
            KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
            KAFKA_LISTENER_SECURITY_PROTOCOL_MAP:
              'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT',
            KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
            KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '1',
            KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
            KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
            KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
            KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
            KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
            KAFKA_NUM_PARTITIONS: '1',
            KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
          })
          .withEntrypoint(['sh', '-c'])
          .withCommand([
            `echo 'waiting for the starter'; while [ ! -f ${KAFKA_STARTER} ]; do sleep 0.1; done; exec sh ${KAFKA_STARTER}`,
          ])
          .withExposedPorts(9092)
          .withWaitStrategy(Wait.forLogMessage(/waiting for the starter/))
          .start();
        const brokers = `${host}:${kafka.getMappedPort(9092)}`;
        const listeners = `PLAINTEXT://${brokers},INTERNAL://localhost:19092`;
        await kafka.copyContentToContainer([
          {
            content: `export KAFKA_ADVERTISED_LISTENERS=${listeners}\nexec /etc/kafka/docker/run\n`,
            target: KAFKA_STARTER,
          },
        ]);
        // "Kafka Server started" comes before the group coordinator serves: npm start's own probe, a real client.
        await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'deploy/local/kafka/ready.js')], {
          env: { ...process.env, KAFKA_BROKERS: brokers, KAFKA_READY_TIMEOUT_MS: String(STARTUP_TIMEOUT_MS) },
        });
        return [{ KAFKA_BROKERS: brokers }, published(kafka, 9092)];
      },
      minio: async () => {
        const minio = await container('minio')
          .withEnvironment({ MINIO_ROOT_USER: S3.accessKey, MINIO_ROOT_PASSWORD: S3.secretKey })
          .withCommand(['server', '/data'])
          .withExposedPorts(9000)
          .withWaitStrategy(Wait.forHttp('/minio/health/ready', 9000))
          .start();
        return [
          {
            S3_ENDPOINT: `http://${host}:${minio.getMappedPort(9000)}`,
            S3_REGION: S3.region,
            S3_ACCESS_KEY: S3.accessKey,
            S3_SECRET_KEY: S3.secretKey,
            S3_BUCKET: S3.bucket,
          },
          published(minio, 9000),
        ];
      },
      mailpit: async () => {
        const mailpit = await container('mailpit')
          .withExposedPorts(1025, 8025)
          .withWaitStrategy(Wait.forHttp('/readyz', 8025))
          .start();
        return [
          {
            SMTP_URL: `smtp://${host}:${mailpit.getMappedPort(1025)}`,
            MAILPIT_URL: `http://${host}:${mailpit.getMappedPort(8025)}`,
          },
          published(mailpit, 1025, 8025),
        ];
      },
    };
    const started = await Promise.all(wanted.map((name) => starters[name]()));
    return {
      runId,
      env: Object.assign({}, ...started.map(([env]) => env)) as Record<string, string>,
      summary: wanted.map((name, i) => `${name}: ${images[name]}, ${started[i]?.[1]}`),
      stop: () => removeRun(runId, docker),
    };
  } catch (err) {
    await removeRun(runId, docker).catch(() => undefined);
    throw err;
  }
}
