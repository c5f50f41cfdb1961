import { DomainError } from '@flowboard/service-kit';

/**
 * A small `where=` filter (api-compat §4.2) for membership's lists: roles (`name`) and users (`name`,
 * `userName`, `email`). Grammar:
 *
 *   expr    = andExpr { "or" andExpr }
 *   andExpr = unary { "and" unary }
 *   unary   = "not" "(" expr ")" | "(" expr ")" | term
 *   term    = property ":" value        value = bare | '"' … '"' (\" and \\ escapes)
 *
 * Keywords and properties are case-insensitive; matching is exact, ignoring case. An unknown property → 400
 * naming it; an unknown value simply matches nothing. Deliberately separate from the story filter in boards.
 */
export type Filter =
  | { kind: 'term'; property: string; value: string }
  | { kind: 'not'; operand: Filter }
  | { kind: 'and' | 'or'; left: Filter; right: Filter };

type Token =
  | { type: '(' | ')'; pos: number }
  | { type: 'word'; text: string; pos: number }
  | { type: 'term'; property: string; value: string; pos: number };

const invalidFilter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-filter' });

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ type: c, pos: i });
      i++;
    } else if (c === '"') {
      throw invalidFilter(
        `Filter syntax error at position ${i + 1}: a quoted value needs 'property:' before it.`,
      );
    } else {
      const start = i;
      while (i < input.length && !/[\s()":]/.test(input[i] as string)) i++;
      const word = input.slice(start, i);
      if (input[i] !== ':') {
        tokens.push({ type: 'word', text: word, pos: start });
        continue;
      }
      i++; // ':'
      let value = '';
      if (input[i] === '"') {
        i++;
        let closed = false;
        while (i < input.length) {
          const ch = input[i] as string;
          if (ch === '\\' && i + 1 < input.length) {
            value += input[i + 1];
            i += 2;
          } else if (ch === '"') {
            closed = true;
            i++;
            break;
          } else {
            value += ch;
            i++;
          }
        }
        if (!closed) throw invalidFilter(`Filter syntax error at position ${start + 1}: unterminated quote.`);
      } else {
        const vStart = i;
        while (i < input.length && !/[\s()"]/.test(input[i] as string)) i++;
        value = input.slice(vStart, i);
      }
      if (!word || !value) throw invalidFilter(`Filter syntax error at position ${start + 1}: empty term.`);
      tokens.push({ type: 'term', property: word, value, pos: start });
    }
  }
  return tokens;
}

/** Parses a filter whose properties must be among `properties` (canonical spelling; matched ignoring case). */
export function parseFilter(input: string, properties: readonly string[]): Filter | undefined {
  if (input.trim() === '') return undefined;
  const canonical = new Map(properties.map((p) => [p.toLowerCase(), p]));
  const tokens = tokenize(input);
  let at = 0;
  const peekWord = (word: string) => {
    const t = tokens[at];
    return t?.type === 'word' && t.text.toLowerCase() === word;
  };
  const fail = (what: string): never => {
    const t = tokens[at];
    throw invalidFilter(
      t
        ? `Filter syntax error at position ${t.pos + 1}: ${what}.`
        : `Filter syntax error at the end: ${what}.`,
    );
  };
  const expect = (type: '(' | ')') => {
    if (tokens[at]?.type !== type) fail(`expected '${type}'`);
    at++;
  };

  const expr = (): Filter => {
    let left = andExpr();
    while (peekWord('or')) {
      at++;
      left = { kind: 'or', left, right: andExpr() };
    }
    return left;
  };
  const andExpr = (): Filter => {
    let left = unary();
    while (peekWord('and')) {
      at++;
      left = { kind: 'and', left, right: unary() };
    }
    return left;
  };
  const unary = (): Filter => {
    const t = tokens[at];
    if (t?.type === 'word' && t.text.toLowerCase() === 'not') {
      at++;
      expect('(');
      const operand = expr();
      expect(')');
      return { kind: 'not', operand };
    }
    if (t?.type === '(') {
      at++;
      const inner = expr();
      expect(')');
      return inner;
    }
    if (t?.type === 'term') {
      at++;
      const property = canonical.get(t.property.toLowerCase());
      if (!property) throw invalidFilter(`Unknown filter property '${t.property}'.`);
      return { kind: 'term', property, value: t.value };
    }
    return fail('expected a term such as name:value');
  };

  const filter = expr();
  if (at < tokens.length) fail('expected "and" or "or"');
  return filter;
}

/** Whether a record matches; `valueOf` gives a record's value for a (canonical) property. */
export function matches(filter: Filter | undefined, valueOf: (property: string) => string): boolean {
  if (!filter) return true;
  switch (filter.kind) {
    case 'term':
      return valueOf(filter.property).toLowerCase() === filter.value.toLowerCase();
    case 'not':
      return !matches(filter.operand, valueOf);
    case 'and':
      return matches(filter.left, valueOf) && matches(filter.right, valueOf);
    case 'or':
      return matches(filter.left, valueOf) || matches(filter.right, valueOf);
  }
}

export const ROLE_FILTER_PROPERTIES = ['name'] as const;
export const USER_FILTER_PROPERTIES = ['name', 'userName', 'email'] as const;
