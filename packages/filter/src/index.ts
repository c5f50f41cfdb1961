import { DomainError } from '@flowboard/service-kit';

/**
 * The `where=` filter language (docs/compat.md §4.2), parsed into an AST; the repository compiles the AST
 * into parameterised SQL, so values never reach SQL text.
 *
 *   expr    = andExpr { "or" andExpr }
 *   andExpr = unary { "and" unary }
 *   unary   = "not" "(" expr ")" | "(" expr ")" | term
 *   term    = property ":" value          ; no spaces around ":"
 *   value   = bare | '"' … '"'            ; bare: no space ( ) " ; quoted: \" \\ escapes
 *
 * Keywords and properties are case-insensitive; an unknown property is an error naming it; values are kept as
 * given (what they match is the caller's business: an unknown value simply matches nothing). Boards compiles
 * the AST into parameterised SQL; membership matches its short lists in memory with `matchesFilter`.
 */
export type FilterNode =
  | { kind: 'or'; items: FilterNode[] }
  | { kind: 'and'; items: FilterNode[] }
  | { kind: 'not'; item: FilterNode }
  | { kind: 'term'; property: string; value: string };

/** Guards against hostile input: the parser is recursive, and every term becomes SQL parameters. */
export const FILTER_LIMITS = Object.freeze({ length: 4000, depth: 32, terms: 200 });

const invalidFilter = (message: string) =>
  new DomainError('InvalidArgument', message, { problem: 'invalid-filter' });

type Token =
  | { type: '(' | ')'; pos: number }
  | { type: 'word'; text: string; pos: number }
  | { type: 'term'; property: string; value: string; pos: number }
  | { type: 'end'; pos: number };

const BARE_STOP = /[\s()"]/;

/** 1-based positions in messages, as people count characters. */
function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')') {
      tokens.push({ type: c, pos: i + 1 });
      i++;
      continue;
    }
    if (c === '"') throw invalidFilter(`Syntax error at position ${i + 1}: expected property:value.`);
    const start = i;
    while (i < input.length && !BARE_STOP.test(input[i] as string)) i++;
    const bare = input.slice(start, i);
    const colon = bare.indexOf(':');
    if (colon < 0) {
      tokens.push({ type: 'word', text: bare, pos: start + 1 });
      continue;
    }
    const property = bare.slice(0, colon);
    if (property === '') throw invalidFilter(`Syntax error at position ${start + 1}: missing property name.`);
    let value = bare.slice(colon + 1);
    if (value === '' && input[i] === '"') {
      const quoted = readQuoted(input, i);
      value = quoted.value;
      i = quoted.end;
    } else if (value === '') {
      throw invalidFilter(`Syntax error at position ${start + colon + 2}: missing value for '${property}'.`);
    }
    tokens.push({ type: 'term', property, value, pos: start + 1 });
  }
  tokens.push({ type: 'end', pos: input.length + 1 });
  return tokens;
}

function readQuoted(input: string, open: number): { value: string; end: number } {
  let value = '';
  let i = open + 1;
  while (i < input.length) {
    const c = input[i] as string;
    if (c === '"') return { value, end: i + 1 };
    if (c === '\\') {
      const next = input[i + 1];
      if (next !== '"' && next !== '\\')
        throw invalidFilter(`Syntax error at position ${i + 1}: only \\" and \\\\ are escapes.`);
      value += next;
      i += 2;
      continue;
    }
    value += c;
    i++;
  }
  throw invalidFilter(`Syntax error at position ${open + 1}: unterminated quoted value.`);
}

/**
 * Parses a filter; `undefined` for a missing or blank one (no filter). Errors are 400 `invalid-filter`: syntax
 * errors give the position, unknown properties their name.
 */
export function parseFilter(
  input: string | undefined,
  properties: readonly string[],
): FilterNode | undefined {
  if (input === undefined || input.trim() === '') return undefined;
  if (input.length > FILTER_LIMITS.length)
    throw invalidFilter(`The filter is longer than ${FILTER_LIMITS.length} characters.`);
  // Properties match ignoring case; terms carry the caller's spelling (`username` → `userName`).
  const known = new Map(properties.map((p) => [p.toLowerCase(), p]));
  const tokens = tokenize(input);
  let at = 0;
  let terms = 0;
  const peek = () => tokens[at] as Token;
  const keyword = (t: Token, word: string) => t.type === 'word' && t.text.toLowerCase() === word;
  const unexpected = (t: Token): DomainError =>
    invalidFilter(
      t.type === 'end'
        ? `Syntax error at position ${t.pos}: unexpected end of filter.`
        : `Syntax error at position ${t.pos}: unexpected '${t.type === 'word' ? t.text : t.type === 'term' ? `${t.property}:` : t.type}'.`,
    );
  const expect = (type: '(' | ')') => {
    const t = peek();
    if (t.type !== type) throw unexpected(t);
    at++;
  };

  function expr(depth: number): FilterNode {
    if (depth > FILTER_LIMITS.depth)
      throw invalidFilter(`The filter nests deeper than ${FILTER_LIMITS.depth} levels.`);
    const items = [andExpr(depth)];
    while (keyword(peek(), 'or')) {
      at++;
      items.push(andExpr(depth));
    }
    return items.length === 1 ? (items[0] as FilterNode) : { kind: 'or', items };
  }

  function andExpr(depth: number): FilterNode {
    const items = [unary(depth)];
    while (keyword(peek(), 'and')) {
      at++;
      items.push(unary(depth));
    }
    return items.length === 1 ? (items[0] as FilterNode) : { kind: 'and', items };
  }

  function unary(depth: number): FilterNode {
    const t = peek();
    if (keyword(t, 'not')) {
      at++;
      expect('(');
      const item = expr(depth + 1);
      expect(')');
      return { kind: 'not', item };
    }
    if (t.type === '(') {
      at++;
      const item = expr(depth + 1);
      expect(')');
      return item;
    }
    if (t.type === 'term') {
      at++;
      const property = known.get(t.property.toLowerCase());
      if (property === undefined) throw invalidFilter(`Unknown filter property '${t.property}'.`);
      if (++terms > FILTER_LIMITS.terms)
        throw invalidFilter(`The filter has more than ${FILTER_LIMITS.terms} terms.`);
      return { kind: 'term', property, value: t.value };
    }
    throw unexpected(t);
  }

  const tree = expr(0);
  if (peek().type !== 'end') throw unexpected(peek());
  return tree;
}

/**
 * In-memory matching for short lists: exact, ignoring case. `valueOf` gives a record's value for a property
 * (in the spelling the parser was given).
 */
export function matchesFilter(node: FilterNode | undefined, valueOf: (property: string) => string): boolean {
  if (!node) return true;
  switch (node.kind) {
    case 'term':
      return valueOf(node.property).toLowerCase() === node.value.toLowerCase();
    case 'not':
      return !matchesFilter(node.item, valueOf);
    case 'and':
      return node.items.every((item) => matchesFilter(item, valueOf));
    case 'or':
      return node.items.some((item) => matchesFilter(item, valueOf));
  }
}
