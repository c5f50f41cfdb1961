const Sequencer = require('@jest/test-sequencer').default;
const { COVERAGE_TEST } = require('./exercised');

/** Jest's own order (slowest first, failed first), except that the operation-coverage check runs last. */
class CoverageLastSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [
      ...sorted.filter((t) => !t.path.endsWith(COVERAGE_TEST)),
      ...sorted.filter((t) => t.path.endsWith(COVERAGE_TEST)),
    ];
  }
}

module.exports = CoverageLastSequencer;
