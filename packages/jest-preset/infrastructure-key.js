// The project config's `globals` key for the infrastructure a workspace's integration tests ask for, and the
// global the started infrastructure is kept under between globalSetup and globalTeardown.
module.exports = { INFRASTRUCTURE_KEY: '__flowboardInfrastructure' };
