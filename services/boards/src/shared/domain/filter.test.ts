import { DomainError } from '@flowboard/service-kit';
import { FILTER_LIMITS, parseFilter, STORY_FILTER_PROPERTIES, type FilterNode } from './filter';

const parse = (input: string | undefined) => parseFilter(input, STORY_FILTER_PROPERTIES);
const term = (property: string, value: string): FilterNode => ({ kind: 'term', property, value });

function failure(input: string): DomainError {
  try {
    parse(input);
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error(`expected '${input}' to be refused`);
}

describe('parseFilter', () => {
  it.each([undefined, '', '   '])('treats %p as no filter', (input) => {
    expect(parse(input)).toBeUndefined();
  });

  it.each<[string, FilterNode]>([
    ['status:started', term('status', 'started')],
    ['STATUS:Started', term('status', 'Started')],
    ['text:"Buy boat \\"The Sea Word\\""', term('text', 'Buy boat "The Sea Word"')],
    ['text:"a\\\\b"', term('text', 'a\\b')],
    ['text:""', term('text', '')],
    ['text:a:b', term('text', 'a:b')],
    ['owner:"Bob Smith"', term('owner', 'Bob Smith')],
    [
      'color:red or color:blue and size:5',
      {
        kind: 'or',
        items: [term('color', 'red'), { kind: 'and', items: [term('color', 'blue'), term('size', '5')] }],
      },
    ],
    [
      '(color:red OR color:blue) AnD size:5',
      {
        kind: 'and',
        items: [{ kind: 'or', items: [term('color', 'red'), term('color', 'blue')] }, term('size', '5')],
      },
    ],
    ['not(status:invalid)', { kind: 'not', item: term('status', 'invalid') }],
    ['NOT ( status:a )', { kind: 'not', item: term('status', 'a') }],
    ['((((id:1))))', term('id', '1')],
  ])('parses %s', (input, tree) => {
    expect(parse(input)).toEqual(tree);
  });

  it('keeps SQL-ish values as plain data', () => {
    expect(parse('text:"\'; DROP TABLE stories; --"')).toEqual(term('text', "'; DROP TABLE stories; --"));
  });

  it.each<[string, RegExp]>([
    ['colour:red', /Unknown filter property 'colour'/],
    ['status:started color:red', /position 16/],
    ['status', /position 1/],
    ['status:', /position 8: missing value/],
    [':red', /position 1: missing property/],
    ['(status:a', /position 10: unexpected end/],
    ['status:a)', /position 9/],
    ['not status:a', /position 5/],
    ['status:a and', /unexpected end/],
    ['or status:a', /position 1/],
    ['text:"open', /position 6: unterminated/],
    ['text:"\\n"', /escapes/],
    ['"x"', /position 1/],
    ['()', /position 2/],
    ["text:';DROP TABLE stories;--", /position 13: unexpected 'TABLE'/],
  ])('refuses %p', (input, message) => {
    const error = failure(input);
    expect(error.kind).toBe('InvalidArgument');
    expect(error.problem).toBe('invalid-filter');
    expect(error.message).toMatch(message);
  });

  it('limits nesting, length and the number of terms without overflowing the stack', () => {
    const deep = (n: number) => '('.repeat(n) + 'id:1' + ')'.repeat(n);
    expect(parse(deep(FILTER_LIMITS.depth))).toEqual(term('id', '1'));
    expect(failure(deep(FILTER_LIMITS.depth + 1)).message).toMatch(/nests deeper/);
    expect(failure('not('.repeat(100_000)).message).toMatch(/longer than|nests deeper/);
    expect(failure('x'.repeat(FILTER_LIMITS.length + 1)).message).toMatch(/longer than/);
    const many = Array.from({ length: FILTER_LIMITS.terms + 1 }, () => 'id:1').join(' or ');
    expect(many.length).toBeLessThanOrEqual(FILTER_LIMITS.length);
    expect(failure(many).message).toMatch(/more than/);
  });

  it('never throws anything but an invalid-filter error on random input', () => {
    const alphabet = [
      '(',
      ')',
      '"',
      '\\',
      ':',
      ' ',
      'and',
      'or',
      'not',
      'id',
      'text',
      'x',
      '1',
      '\u0000',
      'é',
    ];
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 2000; n++) {
      const input = Array.from(
        { length: 1 + Math.floor(rand() * 20) },
        () => alphabet[Math.floor(rand() * alphabet.length)],
      ).join('');
      try {
        parse(input);
      } catch (e) {
        expect(e).toBeInstanceOf(DomainError);
        expect((e as DomainError).problem).toBe('invalid-filter');
      }
    }
  });
});
