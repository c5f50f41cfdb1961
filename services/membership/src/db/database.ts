import { enqueueOutbox, withTransaction, type Pool, type Queryable } from '@flowboard/pg-kit';
import type { Database, Outbox, OutboxMessage, Repositories } from '../application/ports';
import { PgAccountRepository } from './account-repository';
import { PgApiKeyRepository } from './api-key-repository';
import { PgInviteRepository } from './invite-repository';
import { PgProjectRepository } from './project-repository';
import { PgRoleRepository } from './role-repository';
import { PgUserRepository } from './user-repository';

class PgOutbox implements Outbox {
  constructor(
    private readonly db: Queryable,
    private readonly schema: string,
  ) {}

  enqueue(message: OutboxMessage): Promise<void> {
    return enqueueOutbox(this.db, this.schema, message);
  }
}

function repositories(db: Queryable, schema: string): Repositories {
  return {
    users: new PgUserRepository(db),
    apiKeys: new PgApiKeyRepository(db),
    projects: new PgProjectRepository(db),
    roles: new PgRoleRepository(db),
    invites: new PgInviteRepository(db),
    accounts: new PgAccountRepository(db),
    outbox: new PgOutbox(db, schema),
  };
}

/** The PostgreSQL Database: repositories on the pool, or on one client inside a transaction. */
export class PgDatabase implements Database {
  readonly repos: Repositories;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {
    this.repos = repositories(pool, schema);
  }

  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T> {
    return withTransaction(this.pool, (client) => fn(repositories(client, this.schema)));
  }
}
