import { waitFor } from './env';

/** Queries against Mailpit's REST API (or the compatible local mail sink). */
export interface MailSummary {
  ID: string;
  /** The Message-ID header, without angle brackets. */
  MessageID: string;
  Subject: string;
  To: Array<{ Name: string; Address: string }>;
}
export interface MailMessage extends MailSummary {
  Text: string;
  HTML: string;
}

const query = (to: string) => `query=${encodeURIComponent(`to:${to}`)}`;

/**
 * A GET with one retry when the connection itself fails: fetch reuses kept-alive sockets, and one the server
 * closed for idleness just as it was reused fails with "other side closed" (seen on a loaded CI host while a
 * test waited for Kafka). GETs are idempotent, so asking again is safe; HTTP errors are not retried.
 */
async function get(url: string): Promise<Response> {
  try {
    return await fetch(url);
  } catch {
    return fetch(url);
  }
}

export async function searchMail(mailpitUrl: string, to: string): Promise<MailSummary[]> {
  const res = await get(`${mailpitUrl}/api/v1/search?${query(to)}`);
  if (!res.ok) throw new Error(`mail search failed: ${res.status}`);
  return ((await res.json()) as { messages: MailSummary[] }).messages;
}

export async function getMail(mailpitUrl: string, id: string): Promise<MailMessage> {
  const res = await get(`${mailpitUrl}/api/v1/message/${encodeURIComponent(id)}`);
  if (!res.ok) throw new Error(`mail fetch failed: ${res.status}`);
  return (await res.json()) as MailMessage;
}

/** Waits for the first message to `to` and returns it whole. */
export async function waitForMail(mailpitUrl: string, to: string, timeoutMs = 15_000): Promise<MailMessage> {
  const [first] = await waitFor(
    async () => {
      const found = await searchMail(mailpitUrl, to);
      return found.length ? found : undefined;
    },
    timeoutMs,
    `mail to ${to}`,
  );
  return getMail(mailpitUrl, (first as MailSummary).ID);
}

export async function deleteMailTo(mailpitUrl: string, to: string): Promise<void> {
  await fetch(`${mailpitUrl}/api/v1/search?${query(to)}`, { method: 'DELETE' });
}
