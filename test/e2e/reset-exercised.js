const { rmSync } = require('node:fs');
const { EXERCISED_FILE } = require('./exercised');

module.exports = async () => rmSync(EXERCISED_FILE, { force: true });
