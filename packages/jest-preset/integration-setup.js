// globalSetup of the integration projects: the infrastructure the workspace's jest.config.js asks for
// (`config(__dirname, { infrastructure: [...] })`), each piece in a container of this run (testcontainers), unless the
// environment already gives its endpoints (npm test's native fallback, or `source <stack>/infra.env` by hand).
// The endpoints go into process.env, which the test workers inherit.
const { INFRASTRUCTURE_KEY } = require('./infrastructure-key');

module.exports = async function integrationSetup(_globalConfig, projectConfig) {
  const wanted = projectConfig.globals?.[INFRASTRUCTURE_KEY] ?? [];
  if (!wanted.length) return;
  const { ENDPOINT_VARIABLES, prepareEngine, startInfrastructure } = require('@flowboard/testing/containers');
  const given = wanted.filter((name) => ENDPOINT_VARIABLES[name].every((v) => process.env[v]));
  const missing = wanted.filter((name) => !given.includes(name));
  const say = (line) => process.stderr.write(`[integration] ${line}\n`);
  if (given.length) say(`from the environment: ${given.join(', ')}`);
  if (!missing.length) return;
  const t0 = Date.now();
  const engine = await prepareEngine();
  const infrastructure = await startInfrastructure(missing);
  say(`testcontainers on ${engine.description}, up in ${((Date.now() - t0) / 1000).toFixed(1)}s:`);
  for (const line of infrastructure.summary) say(`  ${line}`);
  Object.assign(process.env, infrastructure.env);
  globalThis[INFRASTRUCTURE_KEY] = infrastructure;
};
