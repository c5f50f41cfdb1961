import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { DomainError } from '@flowboard/service-kit';

/**
 * Conditional requests (RFC 9110 §13) on single resources. A strong ETag is `"v<version>-<digest>"`: the version is
 * the one the resource's service keeps in its database (raised by every change of the resource), the digest a hash
 * of the bytes sent, so two representations that differ (JSON and XML, another `with=`, a renamed owner) never share
 * a tag. A write's `If-Match` is checked by its service against the version, in the write's own transaction: exact
 * under concurrency and across replicas. `If-None-Match` on a read compares whole tags here.
 */
export function entityTag(version: number, body: string): string {
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return `"v${version}-${digest}"`;
}

const OURS = /^"v(\d{1,15})-[0-9a-f]+"$/;

/** The entity-tags of an If-Match / If-None-Match field; `*` is its own answer. */
function entityTags(field: string): '*' | string[] {
  if (field.trim() === '*') return '*';
  return (field.match(/(?:W\/)?"[^"]*"/g) ?? []).map((tag) => tag.trim());
}

/** If-None-Match uses the weak comparison: `W/` is ignored. */
export function noneMatch(headers: IncomingHttpHeaders, etag: string): boolean {
  const field = headers['if-none-match'];
  if (field === undefined) return false;
  const tags = entityTags(field);
  return tags === '*' || tags.some((tag) => tag.replace(/^W\//, '') === etag);
}

/**
 * The version a PUT or DELETE expects (`If-Match`), for its service to check: 0 for none (no header, or `*`,
 * which keeps today's behaviour: a missing resource is still 404). A weak tag never matches (RFC 9110 §13.1.1:
 * If-Match compares strongly), nor does one this API did not make: both are sent as -1, which no resource is at,
 * so the service answers 404 or 412 as it finds the resource. Tags of several versions → 400.
 */
export function expectedVersion(headers: IncomingHttpHeaders): number {
  return expectedVersionOf(headers['if-match'], 'If-Match');
}

/** `expectedVersion` of one If-Match value, wherever it came from (a bulk update's story carries its own). */
export function expectedVersionOf(field: string | undefined, name: string): number {
  if (field === undefined) return 0;
  const tags = entityTags(field);
  if (tags === '*') return 0;
  if (tags.length === 0) {
    throw new DomainError('InvalidArgument', `${name} must be '*' or entity-tags in double quotes.`, {
      problem: 'invalid-parameter',
    });
  }
  const versions = new Set(tags.map((tag) => Number(OURS.exec(tag)?.[1] ?? -1)));
  if (versions.size > 1) {
    throw new DomainError('InvalidArgument', `${name} may name one version of the resource.`, {
      problem: 'invalid-parameter',
    });
  }
  return [...versions][0] as number;
}
