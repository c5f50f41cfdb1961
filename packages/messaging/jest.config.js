// Its integration tests' infrastructure: a Kafka container of their own (testcontainers), see @flowboard/jest-preset.
module.exports = require('@flowboard/jest-preset').config(__dirname, { infrastructure: ['kafka'] });
