import { apiClient, requireEnv, uniqueSuffix } from '@flowboard/testing';

export const { GATEWAY_URL, MAILPIT_URL } = requireEnv('GATEWAY_URL', 'MAILPIT_URL');
export const api = apiClient(GATEWAY_URL);

export interface SignedUp {
  id: number;
  userName: string;
  email: string;
  key: string;
}

/** A fresh user per test file, so files never share data. */
export async function signUp(prefix = 'user'): Promise<SignedUp> {
  const userName = `${prefix}-${uniqueSuffix()}`;
  const email = `${userName}@example.test`;
  const res = await api('/api/v1/users', {
    method: 'POST',
    body: { userName, email, name: `${prefix} Tester` },
  });
  if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
  return { id: res.json.id, userName, email, key: res.json.apiKey };
}

export async function createProject(
  key: string,
  name = `Project ${uniqueSuffix()}`,
): Promise<{ id: number; name: string }> {
  const res = await api('/api/v1/projects', { method: 'POST', key, body: { name, description: 'e2e' } });
  if (res.status !== 200) throw new Error(`project create failed: ${res.status} ${res.text}`);
  return { id: res.json.id, name };
}

export const XML_HEADERS = { Accept: 'application/xml' };

/** The names of an element's child elements, in document order (enough to check XML ordering rules). */
export function childNames(xml: string, element: string): string[] {
  const match = new RegExp(`<${element}>([\\s\\S]*?)</${element}>`).exec(xml);
  if (!match) throw new Error(`no <${element}> in ${xml}`);
  const names: string[] = [];
  let depth = 0;
  for (const tag of (match[1] as string).matchAll(/<(\/?)([A-Za-z][\w]*)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = tag;
    if (closing) depth--;
    else {
      if (depth === 0) names.push(name as string);
      if (!selfClosing) depth++;
    }
  }
  return names;
}

export const sorted = (names: string[]): string[] => [...names].sort();
