import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  apiClient,
  gatewayContract,
  metricValue,
  requireEnv,
  uniqueSuffix,
  type ApiClientOptions,
} from '@flowboard/testing';

export const { GATEWAY_URL, MAILPIT_URL } = requireEnv('GATEWAY_URL', 'MAILPIT_URL');

/**
 * A setting of the stack's infrastructure (KAFKA_BROKERS, BOARDS_DATABASE_URL, ...): from the environment, else
 * from the stack's `infra.env`, for the tests that look inside the stack where the API cannot show something.
 */
export function infraSetting(name: string): string {
  const fromEnv = process.env[name];
  if (fromEnv) return fromEnv;
  const { FLOWBOARD_HOME } = requireEnv('FLOWBOARD_HOME');
  const file = readFileSync(path.join(FLOWBOARD_HOME, 'infra.env'), 'utf8');
  const match = new RegExp(`^export ${name}=(.*)$`, 'm').exec(file);
  if (!match) throw new Error(`${name} is neither in the environment nor in ${FLOWBOARD_HOME}/infra.env`);
  // infra.sh single-quotes a value holding `&` (a secure stack's database URLs).
  return match[1]!.trim().replace(/^'(.*)'$/, '$1');
}

/**
 * Checks a response against the gateway's OpenAPI document (`/api/v1/openapi.json`): a JSON body that disagrees
 * with the documented schema of its operation and status throws, failing the test that made the call.
 */
export const checkContract: NonNullable<ApiClientOptions['onResponse']> = async (request, response) => {
  const problems = (await gatewayContract(GATEWAY_URL)).check({
    method: request.method,
    path: request.path,
    status: response.status,
    contentType: response.headers.get('content-type'),
    json: response.json,
    text: response.text,
  });
  if (problems.length) throw new Error(`response breaks the OpenAPI document:\n${problems.join('\n')}`);
};

// eslint-disable-next-line @typescript-eslint/no-require-imports -- shared with jest's globalSetup (plain JS)
const { EXERCISED_FILE } = require('../exercised') as { EXERCISED_FILE: string };

/** Records a documented operation that answered 2xx, for operation-coverage.e2e.test.ts. */
export const recordExercised: NonNullable<ApiClientOptions['onResponse']> = async (request, response) => {
  if (response.status < 200 || response.status > 299) return;
  const template = (await gatewayContract(GATEWAY_URL)).template(request.path);
  if (template) appendFileSync(EXERCISED_FILE, `${request.method.toLowerCase()} ${template}\n`);
};

/**
 * Every e2e call is recorded for the operation coverage and contract-checked (FLOWBOARD_CONTRACT_CHECK=0 turns the
 * check off).
 */
export const api = apiClient(GATEWAY_URL, {
  async onResponse(request, response) {
    await recordExercised(request, response);
    if (process.env.FLOWBOARD_CONTRACT_CHECK !== '0') await checkContract(request, response);
  },
});

/** The stack's operator token (the admin API's), when the stack has one. */
export function operatorToken(): string | undefined {
  if (process.env.FLOWBOARD_OPERATOR_TOKEN) return process.env.FLOWBOARD_OPERATOR_TOKEN;
  try {
    return (
      readFileSync(path.join(process.env.FLOWBOARD_HOME ?? '', 'operator-token'), 'utf8').trim() || undefined
    );
  } catch {
    return undefined;
  }
}

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

/** The callers of an access matrix: no key, a non-member, and one member per access level. */
export type Caller = 'anonymous' | 'stranger' | 'none' | 'read' | 'readwrite' | 'admin';
export type Callers = Record<Caller, string | undefined>;

/**
 * Makes one user per access level on the owner's project: `none` is a member without a role, `read` is in a
 * new read-only role, `readwrite` is in the default Members role; `admin` is the owner.
 */
export async function accessLadder(owner: SignedUp, projectId: number): Promise<Callers> {
  return (await accessLadderUsers(owner, projectId)).callers;
}

/** accessLadder, with the users behind the keys (for tests that also check who did what). */
export async function accessLadderUsers(
  owner: SignedUp,
  projectId: number,
): Promise<{ callers: Callers; users: Record<'stranger' | 'none' | 'read' | 'readwrite', SignedUp> }> {
  const P = `/api/v1/projects/${projectId}`;
  const [stranger, none, reader, writer] = await Promise.all(
    ['stranger', 'none', 'read', 'readwrite'].map((level) => signUp(`ladder-${level}`)),
  );
  const as = { key: owner.key };
  // A member without a role: added while the project has no role named Members (docs/compat.md §5.2), since
  // leaving one's last role now leaves the project too.
  const members = `${P}/roles/${(await api(`${P}/roles?where=name:Members`, as)).json.items[0].id}`;
  await api(members, { ...as, method: 'PUT', body: { name: 'Members (aside)' } });
  await api(`${P}/members`, { ...as, method: 'POST', body: none!.id });
  await api(members, { ...as, method: 'PUT', body: { name: 'Members' } });
  const readRole = await api(`${P}/roles`, {
    ...as,
    method: 'POST',
    body: { name: 'Readers', access: 'read' },
  });
  await api(`${P}/roles/${readRole.json.id}/members`, { ...as, method: 'POST', body: reader!.id });
  await api(`${P}/members`, { ...as, method: 'POST', body: writer!.id });
  return {
    callers: {
      anonymous: undefined,
      stranger: stranger!.key,
      none: none!.key,
      read: reader!.key,
      readwrite: writer!.key,
      admin: owner.key,
    },
    users: { stranger: stranger!, none: none!, read: reader!, readwrite: writer! },
  };
}

/** The statuses `probe` gets for each caller, in the callers' order (callers one after another). */
export async function accessMatrix(
  callers: Partial<Callers>,
  probe: (key: string | undefined) => Promise<number[]>,
): Promise<Partial<Record<Caller, number[]>>> {
  const matrix: Partial<Record<Caller, number[]>> = {};
  for (const [caller, key] of Object.entries(callers) as Array<[Caller, string | undefined]>) {
    matrix[caller] = await probe(key);
  }
  return matrix;
}

/** How many calls of a boards RPC boards has served so far (its Prometheus endpoint). */
export async function boardsCalls(method: string): Promise<number> {
  const { FLOWBOARD_BOARDS_METRICS_PORT: port } = requireEnv('FLOWBOARD_BOARDS_METRICS_PORT');
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return (
    metricValue(text, 'flowboard_grpc_server_handled_total', { grpc_method: method, grpc_code: 'OK' }) ?? 0
  );
}
