// Where the end-to-end run records each documented operation it saw answer 2xx (one line per call: `get /api/v1/...`),
// so that operation-coverage.e2e.test.ts, run last, can check that every operation of the document was exercised by
// some test. Plain JavaScript: jest's globalSetup and sequencer load it too.
const os = require('node:os');
const path = require('node:path');

const EXERCISED_FILE = path.join(
  process.env.FLOWBOARD_TEST_RESULTS || os.tmpdir(),
  'e2e-exercised-operations.txt',
);
const COVERAGE_TEST = 'operation-coverage.e2e.test.ts';

module.exports = { EXERCISED_FILE, COVERAGE_TEST };
