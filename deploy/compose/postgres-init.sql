-- One login role and one schema per service, as deploy/local/infra.sh creates them natively.
CREATE ROLE boards LOGIN;
CREATE SCHEMA boards AUTHORIZATION boards;
CREATE ROLE membership LOGIN;
CREATE SCHEMA membership AUTHORIZATION membership;
CREATE ROLE files LOGIN;
CREATE SCHEMA files AUTHORIZATION files;
CREATE ROLE webhooks LOGIN;
CREATE SCHEMA webhooks AUTHORIZATION webhooks;
