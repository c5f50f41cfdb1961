// Drops one small JSON file per Jest run into $FLOWBOARD_TEST_RESULTS, so scripts/test.sh can print
// one summary across all workspaces and tiers. Does nothing when the variable is unset.
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const dir = process.env.FLOWBOARD_TEST_RESULTS;
    if (!dir) return;
    fs.mkdirSync(dir, { recursive: true });
    const summary = {
      cwd: process.cwd(),
      argv: process.argv.slice(2),
      numPassedTests: results.numPassedTests,
      numFailedTests: results.numFailedTests,
      numPendingTests: results.numPendingTests + results.numTodoTests,
      numTotalTestSuites: results.numTotalTestSuites,
      numFailedTestSuites: results.numFailedTestSuites,
      numRuntimeErrorTestSuites: results.numRuntimeErrorTestSuites,
    };
    const file = path.join(dir, `${Date.now()}-${process.pid}.json`);
    fs.writeFileSync(file, JSON.stringify(summary));
  }
}

module.exports = SummaryReporter;
