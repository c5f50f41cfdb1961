// Kafka readiness probe (recipe §4.4). The broker logs "Kafka Server started" before its group coordinator
// can serve, so retry metadata calls and a group offset fetch (which needs the coordinator, and creates
// __consumer_offsets on first use) until a deadline. Optional arguments: topics to create.
//   KAFKA_BROKERS=127.0.0.1:29092 node deploy/local/kafka/ready.js [topic...]
// A broker that wants TLS and SASL: the services' KAFKA_TLS, KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME and
// KAFKA_SASL_PASSWORD, with NODE_EXTRA_CA_CERTS naming a private CA (infra.sh's secure mode).
const { Kafka, logLevel } = require('kafkajs');

const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:29092').split(',');
const deadline = Date.now() + Number(process.env.KAFKA_READY_TIMEOUT_MS || 60_000);
const topics = process.argv.slice(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const tls = ['true', '1'].includes(process.env.KAFKA_TLS || '');
const mechanism = process.env.KAFKA_SASL_MECHANISM || 'none';
const sasl =
  mechanism === 'none'
    ? undefined
    : { mechanism, username: process.env.KAFKA_SASL_USERNAME, password: process.env.KAFKA_SASL_PASSWORD };

async function probe() {
  const admin = new Kafka({
    clientId: 'flowboard-readiness',
    brokers,
    ssl: tls,
    sasl,
    logLevel: logLevel.NOTHING,
    retry: { retries: 2, initialRetryTime: 200 },
  }).admin();
  try {
    await admin.connect();
    await admin.listTopics();
    await admin.fetchTopicMetadata();
    await admin.fetchOffsets({ groupId: 'flowboard-readiness' });
    if (topics.length) {
      await admin.createTopics({
        topics: topics.map((topic) => ({ topic, numPartitions: 1 })),
        waitForLeaders: true,
      });
    }
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

async function main() {
  for (;;) {
    try {
      await probe();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(500);
    }
  }
}

main().catch((err) => {
  console.error(`kafka not ready on ${brokers.join(',')}: ${err.message}`);
  process.exit(1);
});
