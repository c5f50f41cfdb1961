// globalTeardown of the integration projects: removes the containers integration-setup.js started. (Should this
// process die first, the watchdog it left behind removes them: @flowboard/testing's containers/cleanup.ts.)
const { INFRASTRUCTURE_KEY } = require('./infrastructure-key');

module.exports = async function integrationTeardown() {
  await globalThis[INFRASTRUCTURE_KEY]?.stop();
  delete globalThis[INFRASTRUCTURE_KEY];
};
