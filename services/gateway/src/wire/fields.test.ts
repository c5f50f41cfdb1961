import {
  optionalBoolean,
  optionalInteger,
  optionalNumericText,
  optionalReference,
  optionalString,
  requiredBoolean,
  requiredString,
} from './fields';

describe('field readers (docs/compat.md §1.4)', () => {
  it('strings: strings only; null is unset; numbers, booleans and objects are refused', () => {
    expect(optionalString({ name: 'a' }, 'name')).toBe('a');
    expect(optionalString({ name: null }, 'name')).toBeUndefined();
    for (const name of [false, 5, Infinity, {}, []])
      expect(() => optionalString({ name }, 'name')).toThrow("Field 'name' must be a string.");
  });

  it('numeric text (size, priority): finite numbers become their text; booleans and Infinity are refused', () => {
    expect(optionalNumericText({ size: 5 }, 'size')).toBe('5');
    expect(optionalNumericText({ size: 'M' }, 'size')).toBe('M');
    expect(optionalNumericText({ size: null }, 'size')).toBeUndefined();
    expect(() => optionalNumericText({ size: Infinity }, 'size')).toThrow(/finite number/);
    expect(() => optionalNumericText({ size: true }, 'size')).toThrow("Field 'size' must be a string.");
  });

  it('required strings name the missing field; aliases count', () => {
    expect(() => requiredString({ text: '  ' }, 'text')).toThrow("Field 'text' is required.");
    expect(requiredString({ username: 'gob' }, 'userName', 'username')).toBe('gob');
    expect(requiredString({ userName: 'a', username: 'b' }, 'userName', 'username')).toBe('a');
  });

  it('integers accept numeric strings; "" and null clear', () => {
    expect(optionalInteger({ limit: '5' }, 'limit')).toBe(5);
    expect(optionalInteger({ limit: '' }, 'limit')).toBeNull();
    expect(optionalInteger({}, 'limit')).toBeUndefined();
    expect(() => optionalInteger({ limit: '5x' }, 'limit')).toThrow(/integer/);
    expect(() => optionalInteger({ limit: 1.5 }, 'limit')).toThrow(/integer/);
  });

  it('required booleans: JSON booleans and XML "true"/"false" text; anything else names the field', () => {
    expect(requiredBoolean({ enabled: false }, 'enabled')).toBe(false);
    expect(requiredBoolean({ enabled: true }, 'enabled')).toBe(true);
    expect(requiredBoolean({ enabled: 'false' }, 'enabled')).toBe(false);
    expect(requiredBoolean({ enabled: ' True ' }, 'enabled')).toBe(true);
    for (const enabled of [undefined, null, '', 'no', 'yes', 0, 1, '0', [], {}])
      expect(() => requiredBoolean({ enabled }, 'enabled')).toThrow(
        "Field 'enabled' is required and must be true or false.",
      );
  });

  it('optional booleans: as required ones, but absent, null and an empty XML element are unset', () => {
    expect(optionalBoolean({ active: false }, 'active')).toBe(false);
    expect(optionalBoolean({ active: ' TRUE ' }, 'active')).toBe(true);
    for (const active of [undefined, null, '']) expect(optionalBoolean({ active }, 'active')).toBeUndefined();
    for (const active of ['yes', 0, 1, '1', [], {}])
      expect(() => optionalBoolean({ active }, 'active')).toThrow("Field 'active' must be true or false.");
  });

  it('references: id, numeric string, {id}, names where accepted', () => {
    const byName = { byName: true };
    expect(optionalReference({ phase: 3 }, 'phase', byName)).toEqual({ id: 3 });
    expect(optionalReference({ phase: '3' }, 'phase', byName)).toEqual({ id: 3 });
    expect(optionalReference({ phase: { id: '3', name: 'x' } }, 'phase', byName)).toEqual({ id: 3 });
    expect(optionalReference({ phase: { name: ' Working ' } }, 'phase', byName)).toEqual({ name: 'Working' });
    expect(optionalReference({ phase: 'Working' }, 'phase', byName)).toEqual({ name: 'Working' });
    expect(optionalReference({ phase: null }, 'phase', byName)).toBeNull();
    expect(optionalReference({}, 'phase', byName)).toBeUndefined();
    expect(() => optionalReference({ role: 'Members' }, 'role', { byName: false })).toThrow(/'role'/);
    expect(() => optionalReference({ role: { name: 'x' } }, 'role', { byName: false })).toThrow(/'role'/);
    expect(() => optionalReference({ role: 0 }, 'role', { byName: false })).toThrow(/'role'/);
  });
});
