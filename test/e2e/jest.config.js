const path = require('node:path');

// The e2e run starts with an empty record of exercised operations (exercised.js) and runs the file that checks it
// last, after every other test file has made its calls.
module.exports = {
  ...require('@flowboard/jest-preset').config(__dirname),
  globalSetup: path.join(__dirname, 'reset-exercised.js'),
  testSequencer: path.join(__dirname, 'coverage-last-sequencer.js'),
};
