// The stored message, in Mailpit's field names, and Mailpit's search syntax (the subset tests use).
export interface Address {
  Name: string;
  Address: string;
}

export interface Attachment {
  PartID: string;
  FileName: string;
  ContentType: string;
  Size: number;
}

export interface Message {
  ID: string;
  MessageID: string;
  From: Address;
  To: Address[];
  Cc: Address[];
  Bcc: Address[]; // envelope recipients not named in To/Cc
  ReplyTo: Address[];
  Subject: string;
  Created: string; // when we received it (ISO 8601)
  Date: string; // the Date header, or Created
  Text: string;
  HTML: string;
  Size: number;
  Attachments: Attachment[];
}

export interface Term {
  field: 'to' | 'from' | 'subject' | 'message-id' | 'any';
  value: string;
  negate: boolean;
}

// `to:a@x subject:"two words" -from:b plain` → one term per token; all terms must match (AND).
const TOKEN = /([-!]?)(?:(to|from|subject|message-id):)?(?:"([^"]*)"|(\S+))/gi;

export function parseQuery(query: string): Term[] {
  const terms: Term[] = [];
  for (const m of query.matchAll(TOKEN)) {
    const value = (m[3] ?? m[4] ?? '').toLowerCase();
    if (!value) continue;
    const field = (m[2]?.toLowerCase() ?? 'any') as Term['field'];
    terms.push({ field, value, negate: m[1] !== '' });
  }
  return terms;
}

const addr = (a: Address) => `${a.Name} <${a.Address}>`.toLowerCase();

// Like Mailpit (SQL LIKE '%value%'): case-insensitive substring match.
function termMatches(msg: Message, { field, value }: Term): boolean {
  const has = (s: string) => s.toLowerCase().includes(value);
  const recipients = () => [...msg.To, ...msg.Cc, ...msg.Bcc].some((a) => addr(a).includes(value));
  switch (field) {
    case 'to':
      return recipients();
    case 'from':
      return addr(msg.From).includes(value);
    case 'subject':
      return has(msg.Subject);
    case 'message-id':
      return has(msg.MessageID);
    default:
      return has(msg.Subject) || addr(msg.From).includes(value) || recipients() || has(msg.Text);
  }
}

export function matches(msg: Message, terms: Term[]): boolean {
  return terms.every((t) => termMatches(msg, t) !== t.negate);
}

export function snippet(text: string, max = 250): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}
