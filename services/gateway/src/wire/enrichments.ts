import { DomainError } from '@flowboard/service-kit';

/** The enrichments one resource supports, and which of them `everything` turns on. */
export interface EnrichmentVocabulary {
  names: readonly string[];
  /** Defaults to all names; projects leave out `invites` (docs/compat.md §4.3). */
  everything?: readonly string[];
}

/**
 * Parses `with=` values (docs/compat.md §4.3): comma-separated, case-insensitive, repeated arguments merged;
 * `everything` turns on all; an unknown name → 400 `unknown-enrichment` naming it.
 */
export function parseEnrichments(values: string[], vocabulary: EnrichmentVocabulary): ReadonlySet<string> {
  const known = new Map(vocabulary.names.map((n) => [n.toLowerCase(), n]));
  const selected = new Set<string>();
  for (const raw of values.flatMap((v) => v.split(','))) {
    const name = raw.trim().toLowerCase();
    if (!name) continue;
    if (name === 'everything') {
      (vocabulary.everything ?? vocabulary.names).forEach((n) => selected.add(n));
      continue;
    }
    const canonical = known.get(name);
    if (!canonical) {
      throw new DomainError('InvalidArgument', `Unknown enrichment '${raw.trim()}'.`, {
        problem: 'unknown-enrichment',
      });
    }
    selected.add(canonical);
  }
  return selected;
}
