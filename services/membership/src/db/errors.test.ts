import { DomainError } from '@flowboard/service-kit';
import { translateInfrastructureError } from './errors';

describe('translateInfrastructureError', () => {
  it.each([
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    new Error('timeout exceeded when trying to connect'),
  ])('makes an unreachable database Unavailable without its details', (error) => {
    const translated = translateInfrastructureError(error) as DomainError;
    expect(translated).toBeInstanceOf(DomainError);
    expect(translated.kind).toBe('Unavailable');
    expect(translated.message).not.toContain('127.0.0.1');
  });

  it('leaves domain errors and other failures alone', () => {
    const domain = new DomainError('NotFound', 'Project not found');
    expect(translateInfrastructureError(domain)).toBe(domain);
    const syntax = Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' });
    expect(translateInfrastructureError(syntax)).toBe(syntax);
  });
});
