import { DomainError } from '@flowboard/service-kit';
import { parseEnrichments } from './enrichments';

const project = {
  names: ['details', 'members', 'phases', 'roles', 'invites'],
  everything: ['details', 'members', 'phases', 'roles'],
};

describe('parseEnrichments (docs/compat.md §4.3)', () => {
  it('splits on commas, ignores case and blanks, merges repeats', () => {
    expect([...parseEnrichments(['Phases,ROLES', ' details ,', 'phases'], project)].sort()).toEqual([
      'details',
      'phases',
      'roles',
    ]);
  });

  it('everything turns on the everything list', () => {
    expect([...parseEnrichments(['everything'], project)].sort()).toEqual([
      'details',
      'members',
      'phases',
      'roles',
    ]);
    expect([...parseEnrichments(['Everything'], { names: ['details'] })]).toEqual(['details']);
  });

  it('an explicit name outside everything still works', () => {
    expect(parseEnrichments(['everything,invites'], project).has('invites')).toBe(true);
  });

  it('an unknown name is 400 unknown-enrichment naming it', () => {
    let error: unknown;
    try {
      parseEnrichments(['phases,Colour'], project);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'InvalidArgument', problem: 'unknown-enrichment' });
    expect((error as Error).message).toContain("'Colour'");
  });

  it('no with → nothing', () => {
    expect(parseEnrichments([], project).size).toBe(0);
    expect(parseEnrichments([''], project).size).toBe(0);
  });
});
