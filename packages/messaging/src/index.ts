/**
 * The seam over the Kafka client. Only this package imports kafkajs, so a switch to another client
 * (e.g. @confluentinc/kafka-javascript, which mimics this API) touches one folder.
 */
export * from './kafka';
export * from './fetch-gathering';
export * from './publisher';
export * from './event-consumer';
export * from './topic-ensuring-publisher';
export { BackgroundConsumer, type BackgroundConsumerOptions } from './background-consumer';
export * from './topic-tail';
