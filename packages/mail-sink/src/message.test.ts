import { matches, parseQuery, snippet, type Message } from './message';

const msg = (over: Partial<Message> = {}): Message => ({
  ID: '1',
  MessageID: 'abc@flowboard.test',
  From: { Name: 'Flowboard', Address: 'noreply@flowboard.test' },
  To: [{ Name: 'Alice', Address: 'alice@example.test' }],
  Cc: [],
  Bcc: [],
  ReplyTo: [],
  Subject: 'You were invited to Roadmap',
  Created: '2025-01-01T00:00:00.000Z',
  Date: '2025-01-01T00:00:00.000Z',
  Text: 'Hello Alice, join the board.',
  HTML: '',
  Size: 100,
  Attachments: [],
  ...over,
});

const q = (query: string, m = msg()) => matches(m, parseQuery(query));

describe('parseQuery', () => {
  it('splits fields, quoted values and negation', () => {
    expect(parseQuery('to:A@x.test subject:"two words" -from:bob plain')).toEqual([
      { field: 'to', value: 'a@x.test', negate: false },
      { field: 'subject', value: 'two words', negate: false },
      { field: 'from', value: 'bob', negate: true },
      { field: 'any', value: 'plain', negate: false },
    ]);
  });
});

describe('matches', () => {
  it('matches to: case-insensitively, including Cc and envelope Bcc', () => {
    expect(q('to:ALICE@example.test')).toBe(true);
    expect(q('to:bob@example.test')).toBe(false);
    expect(q('to:bob@example.test', msg({ Cc: [{ Name: '', Address: 'bob@example.test' }] }))).toBe(true);
    expect(q('to:carol@example.test', msg({ Bcc: [{ Name: '', Address: 'carol@example.test' }] }))).toBe(
      true,
    );
  });

  it('matches from:, subject: and message-id: as substrings', () => {
    expect(q('from:noreply@flowboard.test')).toBe(true);
    expect(q('subject:invited')).toBe(true);
    expect(q('subject:"invited to roadmap"')).toBe(true);
    expect(q('subject:deleted')).toBe(false);
    expect(q('message-id:abc@flowboard.test')).toBe(true);
  });

  it('requires every term and honours negation', () => {
    expect(q('to:alice subject:invited')).toBe(true);
    expect(q('to:alice subject:deleted')).toBe(false);
    expect(q('to:alice -subject:invited')).toBe(false);
  });

  it('matches bare words anywhere, and an empty query matches all', () => {
    expect(q('join')).toBe(true);
    expect(q('')).toBe(true);
  });
});

describe('snippet', () => {
  it('collapses whitespace and truncates', () => {
    expect(snippet('a\n\n  b')).toBe('a b');
    expect(snippet('x'.repeat(300))).toHaveLength(253);
  });
});
