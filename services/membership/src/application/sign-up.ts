import { DomainError } from '@flowboard/service-kit';
import { apiKeyHint, generateApiKey, hashApiKey } from '../domain/secrets';
import { parseNewUser } from '../domain/user';
import type { Database, User } from './ports';

export interface SignUpInput {
  name?: string;
  userName?: string;
  email?: string;
}

/** Creates a user and their first API key; the key is returned once and only its hash is kept. */
export function createSignUp(deps: { db: Database; enabled: boolean }) {
  return async (input: SignUpInput): Promise<{ user: User; apiKey: string }> => {
    // Switched off, sign-up does not exist (docs/compat.md §6: 404).
    if (!deps.enabled) throw new DomainError('NotFound', 'Sign-up is disabled');
    const newUser = parseNewUser(input);
    const apiKey = generateApiKey();
    const user = await deps.db.transaction(async (tx) => {
      const created = await tx.users.insert(newUser);
      await tx.apiKeys.insert({ userId: created.id, keyHash: hashApiKey(apiKey), hint: apiKeyHint(apiKey) });
      // One account per user, holding the projects they will own (limits: the defaults until an operator sets any).
      await tx.accounts.ensure(created.id);
      return created;
    });
    return { user, apiKey };
  };
}
