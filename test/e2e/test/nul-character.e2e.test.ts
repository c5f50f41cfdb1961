import { uniqueSuffix } from '@flowboard/testing';
import { operatorToken } from './operator';
import { api, createProject, GATEWAY_URL, signUp, type SignedUp } from './support';

/**
 * A NUL character (U+0000) in any string a request brings is a 400 naming where it was, never a 500 (PostgreSQL
 * cannot store it). The cases are generated from the served OpenAPI document, itself built from the gateway's
 * operation declarations: every operation, every string path parameter, every query argument it documents, and
 * every string a JSON body of its request schema can hold (at any depth), plus each top-level string of its XML
 * body. Real ids fill the other parameters, so each request gets past routing, membership and sub-resource checks.
 */

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query';
  schema?: Schema;
}
interface Case {
  title: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** What the problem's `detail` must name. */
  names: string;
}

const NUL = 'a\u0000b';
let doc: {
  paths: Record<string, Record<string, Schema>>;
  components: Record<string, Record<string, Schema>>;
};

/** `#/components/...` references resolved. */
function deref<T>(value: T): T {
  const ref = (value as { $ref?: string } | undefined)?.$ref;
  if (!ref) return value;
  const [, , group, name] = ref.split('/');
  return deref(doc.components[group as string]?.[name as string] as T);
}

/** Every place a string can sit in a value of `schema`: a path of keys and indexes ([] = the body itself). */
function stringLeaves(schema: Schema, depth = 0): Array<Array<string | number>> {
  const s = deref(schema);
  if (depth > 4) return [];
  const alternatives = [...((s.oneOf as Schema[]) ?? []), ...((s.anyOf as Schema[]) ?? [])];
  if (alternatives.length) return alternatives.flatMap((alt) => stringLeaves(alt, depth + 1));
  const types = ([] as unknown[]).concat(s.type ?? []);
  const leaves: Array<Array<string | number>> = [];
  if (types.includes('string')) leaves.push([]);
  if (types.includes('array') && s.items)
    leaves.push(...stringLeaves(s.items as Schema, depth + 1).map((p) => [0, ...p]));
  if (s.properties)
    for (const [key, prop] of Object.entries(s.properties as Record<string, Schema>))
      leaves.push(...stringLeaves(prop, depth + 1).map((p) => [key, ...p]));
  return leaves;
}

/** A value holding `leaf` at `path` and nothing else. */
function placed(path: Array<string | number>, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  return typeof head === 'number' ? [placed(rest, leaf)] : { [head as string]: placed(rest, leaf) };
}

/** How the gateway names a field path: `tasks[0].text`. */
const fieldName = (path: Array<string | number>) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');

describe('a NUL character anywhere in a request is a 400 naming where it was', () => {
  let owner: SignedUp;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    doc = (await (await fetch(`${GATEWAY_URL}/api/v1/openapi.json`)).json()) as typeof doc;
    owner = await signUp('nul');
    const member = await signUp('nul-member');
    const as = { key: owner.key };
    const project = await createProject(owner.key);
    const P = `/api/v1/projects/${project.id}`;
    const story = await api(`${P}/stories`, { ...as, method: 'POST', body: { text: 'NUL target' } });
    const task = await api(`${P}/stories/${story.json.id}/tasks`, {
      ...as,
      method: 'POST',
      body: { text: 't' },
    });
    const comment = await api(`${P}/stories/${story.json.id}/comments`, {
      ...as,
      method: 'POST',
      body: { text: 'c' },
    });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'application/octet-stream' }), 'n.bin');
    const attachment = await api(`${P}/stories/${story.json.id}/attachments`, {
      ...as,
      method: 'POST',
      body: form,
    });
    const tag = `nul-tag-${uniqueSuffix()}`;
    await api(`${P}/tags`, { ...as, method: 'POST', body: { name: tag } });
    const role = await api(`${P}/roles`, {
      ...as,
      method: 'POST',
      body: { name: 'NUL role', access: 'read' },
    });
    await api(`${P}/members`, { ...as, method: 'POST', body: member.id });
    const invite = await api(`${P}/invites`, {
      ...as,
      method: 'POST',
      body: { email: `nul-${uniqueSuffix()}@example.test`, role: role.json.id },
    });
    const key = await api('/api/v1/me/apikeys', { ...as, method: 'POST' });
    const phases = await api(`${P}/phases`, as);
    // Nothing listens on port 9; the webhook is deactivated after its ping, so the delivery is not retried.
    const webhook = await api(`${P}/webhooks`, {
      ...as,
      method: 'POST',
      body: { url: 'http://127.0.0.1:9/nul' },
    });
    const W = `${P}/webhooks/${webhook.json?.id}`;
    const ping = await api(`${W}/ping`, { ...as, method: 'POST' });
    await api(W, { ...as, method: 'PUT', body: { active: false } });
    const created = { story, task, comment, role, invite, key, phases, webhook, ping };
    for (const [name, res] of Object.entries(created))
      if (res.status !== 200) throw new Error(`seeding ${name} failed: ${res.status} ${res.text}`);
    if (attachment.status !== 200) throw new Error(`seeding the attachment failed: ${attachment.text}`);
    Object.assign(ids, {
      projectId: String(project.id),
      storyId: String(story.json.id),
      phaseId: String(phases.json.items[1].id),
      taskId: String(task.json.id),
      commentId: String(comment.json.id),
      attachmentId: String(attachment.json.items[0].id),
      roleId: String(role.json.id),
      inviteId: String(invite.json.id),
      webhookId: String(webhook.json.id),
      deliveryId: String(ping.json.id),
      keyId: String(key.json.id),
      userId: String(member.id),
      user: member.userName,
      tag,
      token: '0123456789abcdef0123456789abcdef',
    });
  });

  function cases(): Case[] {
    const all: Case[] = [];
    for (const [template, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!operation.operationId) continue;
        const params = ((operation.parameters as Schema[]) ?? []).map(
          (p) => deref(p) as unknown as Parameter,
        );
        const fill = (nulIn?: string) =>
          template.replace(/\{(\w+)\}/g, (_m, name: string) => {
            if (name === nulIn) return encodeURIComponent(NUL);
            const id = ids[name];
            if (id === undefined) throw new Error(`no seeded value for {${name}} of ${template}`);
            return encodeURIComponent(id);
          });
        const what = `${method.toUpperCase()} ${template}`;
        // `where` (required by the bulk update) gets a value that matches nothing.
        const required = params.filter((p) => p.in === 'query' && p.name === 'where').map((p) => p.name);
        const query = (nulIn?: string) =>
          [
            ...required.filter((name) => name !== nulIn).map((name) => `${name}=id:999999`),
            ...(nulIn ? [`${nulIn}=${encodeURIComponent(NUL)}`] : []),
          ].join('&');
        const at = (path: string, nulIn?: string) => (query(nulIn) ? `${path}?${query(nulIn)}` : path);
        // An argument no operation knows: every query argument is checked, known or not.
        all.push({
          title: `${what}: query x-unknown`,
          method,
          path: at(fill(), 'x-unknown'),
          names: 'x-unknown',
        });
        for (const p of params) {
          if (p.in === 'path' && [deref(p.schema ?? {}).type].flat().includes('string'))
            all.push({ title: `${what}: path {${p.name}}`, method, path: at(fill(p.name)), names: p.name });
          if (p.in === 'query')
            all.push({ title: `${what}: query ${p.name}`, method, path: at(fill(), p.name), names: p.name });
        }
        const content = deref((operation.requestBody as Schema | undefined) ?? {}).content as
          Record<string, { schema: Schema }> | undefined;
        const json = content?.['application/json']?.schema;
        if (!json) continue;
        for (const leaf of stringLeaves(json)) {
          all.push({
            title: `${what}: JSON ${fieldName(leaf) || '(the body)'}`,
            method,
            path: at(fill()),
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(placed(leaf, NUL)),
            names: fieldName(leaf),
          });
          if (leaf.length === 1 && typeof leaf[0] === 'string')
            all.push({
              title: `${what}: XML ${leaf[0]}`,
              method,
              path: at(fill()),
              headers: { 'Content-Type': 'application/xml' },
              body: `<body><${leaf[0]}>a&#0;b</${leaf[0]}></body>`,
              names: leaf[0],
            });
        }
      }
    }
    return all;
  }

  it('covers every operation of the document', () => {
    const covered = new Set(cases().map((c) => c.title.split(':')[0]));
    const operations = Object.entries(doc.paths).flatMap(([template, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.operationId)
        .map(([method]) => `${method.toUpperCase()} ${template}`),
    );
    expect(operations.length).toBeGreaterThan(70);
    expect(operations.filter((op) => !covered.has(op))).toEqual([]);
  });

  it('answers 400 naming the parameter or field, for every case', async () => {
    const wrong: string[] = [];
    for (const c of cases()) {
      const admin = c.path.startsWith('/api/v1/admin/');
      const res = await api(c.path, {
        method: c.method.toUpperCase(),
        ...(admin ? {} : { key: owner.key }),
        headers: { ...c.headers, ...(admin ? { Authorization: `Bearer ${operatorToken()}` } : {}) },
        body: c.body as never,
      });
      const detail = String(res.json?.detail ?? res.text);
      const named = c.names === '' ? /request body/.test(detail) : detail.includes(`'${c.names}'`);
      if (res.status !== 400 || !/NUL/.test(detail) || !named)
        wrong.push(`${c.title} → ${res.status} ${detail.slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('left every seeded resource in place (nothing was written by a refused request)', async () => {
    const P = `/api/v1/projects/${ids.projectId}`;
    const as = { key: owner.key };
    const S = `${P}/stories/${ids.storyId}`;
    for (const path of [
      S,
      `${S}/tasks/${ids.taskId}`,
      `${S}/comments/${ids.commentId}`,
      `${S}/attachments/${ids.attachmentId}`,
      `${P}/tags/${encodeURIComponent(ids.tag as string)}`,
      `${P}/roles/${ids.roleId}`,
      `${P}/members/${ids.userId}`,
      `${P}/invites/${ids.inviteId}`,
      `${P}/webhooks/${ids.webhookId}`,
    ])
      expect([path, (await api(path, as)).status]).toEqual([path, 200]);
  });
});
