import { z } from 'zod';
import { DomainError } from '@flowboard/service-kit';

/** Limits from docs/compat.md §1.5 and §5.1. */
export const MAX_NAME_LENGTH = 200;
export const MAX_EMAIL_LENGTH = 254;
const USER_NAME = /^[A-Za-z0-9._-]{1,200}$/;
// The same validator the invite-created event uses, so every address we accept can travel in an event.
const emailSchema = z.email();

const invalid = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-field' });

export interface NewUser {
  name: string;
  userName: string;
  email: string;
}

/** Trims and checks a login name: 1–200 characters of [A-Za-z0-9._-]. Case is kept; uniqueness ignores it. */
export function parseUserName(raw: string | undefined): string {
  const userName = (raw ?? '').trim();
  if (!userName) throw invalid("'userName' is required.");
  if (!USER_NAME.test(userName)) {
    throw invalid("'userName' must be 1-200 characters of letters, digits, '.', '_' or '-'.");
  }
  return userName;
}

/** Trims and checks an e-mail address. Case is kept for display; uniqueness and matching ignore it. */
export function parseEmail(raw: string | undefined, field = 'email'): string {
  const email = (raw ?? '').trim();
  if (!email) throw invalid(`'${field}' is required.`);
  if (email.length > MAX_EMAIL_LENGTH || !emailSchema.safeParse(email).success) {
    throw invalid(`'${field}' is not a valid e-mail address.`);
  }
  return email;
}

/** Sign-up input: the display name defaults to the login name. */
export function parseNewUser(input: { name?: string; userName?: string; email?: string }): NewUser {
  const userName = parseUserName(input.userName);
  const email = parseEmail(input.email);
  const name = (input.name ?? '').trim() || userName;
  if (name.length > MAX_NAME_LENGTH) throw invalid(`'name' must be at most ${MAX_NAME_LENGTH} characters.`);
  return { name, userName, email };
}

export const sameEmail = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** `bio` is long free text (docs/compat.md §1.5). */
export const MAX_BIO_LENGTH = 100_000;

/** PUT /me: `name`, `userName`, `email`, `bio`, each optional; present ones are checked like at sign-up. */
export function parseUserChanges(input: { name?: string; userName?: string; email?: string; bio?: string }): {
  name?: string;
  userName?: string;
  email?: string;
  bio?: string;
} {
  const changes: { name?: string; userName?: string; email?: string; bio?: string } = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (!name) throw invalid("'name' must not be blank.");
    if (name.length > MAX_NAME_LENGTH) throw invalid(`'name' must be at most ${MAX_NAME_LENGTH} characters.`);
    changes.name = name;
  }
  if (input.userName !== undefined) changes.userName = parseUserName(input.userName);
  if (input.email !== undefined) changes.email = parseEmail(input.email);
  if (input.bio !== undefined) {
    if (input.bio.length > MAX_BIO_LENGTH)
      throw invalid(`'bio' must be at most ${MAX_BIO_LENGTH} characters.`);
    changes.bio = input.bio;
  }
  return changes;
}
