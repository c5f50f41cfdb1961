import { isOperator } from './admin.routes';

describe('isOperator', () => {
  const token = 'a'.repeat(40);

  it('accepts exactly "Bearer <token>", the scheme in any case', () => {
    expect(isOperator({ authorization: `Bearer ${token}` }, token)).toBe(true);
    expect(isOperator({ authorization: ` bearer ${token} ` }, token)).toBe(true);
  });

  it('refuses anything else', () => {
    for (const authorization of [
      undefined,
      '',
      'Bearer',
      token,
      `Basic ${token}`,
      `Bearer ${token}a`,
      `Bearer ${token.slice(1)}`,
      `Bearer ${token} extra`,
    ])
      expect(isOperator({ authorization }, token)).toBe(false);
  });
});
