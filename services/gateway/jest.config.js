// Its integration tests' infrastructure: containers of their own (testcontainers), see @flowboard/jest-preset.
module.exports = require('@flowboard/jest-preset').config(__dirname, { infrastructure: ['redis', 'kafka'] });
