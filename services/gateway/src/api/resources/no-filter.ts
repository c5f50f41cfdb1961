import { DomainError } from '@flowboard/service-kit';
import type { Call } from '../call';

/**
 * `where` on a list whose items have no filterable property (invites, webhooks, deliveries; docs/compat.md §4.2):
 * accepted, but any property is 400 `invalid-filter` naming it. Blank means no filter.
 */
export function rejectWhere(call: Call): void {
  const where = call.query.get('where');
  if (where === undefined || where.trim() === '') return;
  const property = /^\s*(?:not\s*\(|\()*\s*([^\s:()"]+)\s*:/i.exec(where)?.[1] ?? where.trim();
  throw new DomainError('InvalidArgument', `Unknown filter property '${property}'.`, {
    problem: 'invalid-filter',
  });
}
