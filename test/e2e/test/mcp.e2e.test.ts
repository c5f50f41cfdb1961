import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { api, createProject, GATEWAY_URL, signUp, type SignedUp } from './support';

/**
 * The MCP endpoint (`/mcp`) with the official MCP client: tools generated from the API's declarations, writes that
 * are safe by construction (If-Match from `version`, an Idempotency-Key on every create, partial updates), the board
 * as a resource with the change stream's position, and the stdio entry point on the same code.
 */

/** An MCP client on the gateway's `/mcp`, as this API key (the one place a test picks its key). */
async function connectMcp(key: string): Promise<Client> {
  const client = new Client({ name: 'flowboard-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', GATEWAY_URL), {
      requestInit: { headers: { 'X-Zen-ApiKey': key } },
    }),
  );
  return client;
}

const STDIO_ENTRY = path.resolve(__dirname, '../../../services/gateway/dist/mcp/stdio.js');

type Story = Record<string, unknown> & { id: number; version: number; phase: { id: number; name: string } };

/** A tool's call that must succeed: its structured content. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Story> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent as Story;
}
const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('MCP: /mcp with a full key', () => {
  let owner: SignedUp;
  let project: { id: number; name: string };
  let phases: Array<{ id: number; name: string }>;
  let mcp: Client;
  const P = () => `/api/v1/projects/${project.id}`;
  const readStory = async (id: number) =>
    (await api(`${P()}/stories/${id}?with=details,tags`, { key: owner.key })).json;

  beforeAll(async () => {
    owner = await signUp('mcp');
    project = await createProject(owner.key, 'Agents welcome');
    phases = (await api(`${P()}?with=phases`, { key: owner.key })).json.phases;
    mcp = await connectMcp(owner.key);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('refuses a missing or unknown key with 401 before anything else', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    for (const headers of [
      {},
      { 'X-Zen-ApiKey': '0'.repeat(32) },
      { Authorization: `Bearer ${'f'.repeat(32)}` },
    ]) {
      const res = await fetch(`${GATEWAY_URL}/mcp`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(initialize),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    await expect(connectMcp('0'.repeat(32))).rejects.toThrow();
  });

  it("holds a body to the API's limit (413), and serves no stream or session: GET and DELETE are 405", async () => {
    const headers = {
      'X-Zen-ApiKey': owner.key,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(1_100_000) },
    });
    const tooLarge = await fetch(`${GATEWAY_URL}/mcp`, { method: 'POST', headers, body: huge }).catch(
      () => null,
    );
    // The gateway answers 413 and closes without reading the rest; a client still sending may see the reset.
    if (tooLarge) expect(tooLarge.status).toBe(413);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${GATEWAY_URL}/mcp`, { method, headers });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    }
  });

  it('takes the key the ways the API does: X-Zen-ApiKey, Bearer, ?apikey=', async () => {
    const viaQuery = new Client({ name: 'q', version: '1' });
    await viaQuery.connect(
      new StreamableHTTPClientTransport(new URL(`/mcp?apikey=${owner.key}`, GATEWAY_URL)),
    );
    expect((await viaQuery.listTools()).tools.length).toBeGreaterThan(0);
    await viaQuery.close();
    const viaBearer = new Client({ name: 'b', version: '1' });
    await viaBearer.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', GATEWAY_URL), {
        requestInit: { headers: { Authorization: `Bearer ${owner.key}` } },
      }),
    );
    expect((await viaBearer.listTools()).tools.length).toBeGreaterThan(0);
    await viaBearer.close();
  });

  it('lists the tools made from the declarations, and none for what an agent should not call', async () => {
    const { tools } = await mcp.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'listStories',
        'getStory',
        'createStory',
        'updateStory',
        'deleteStory',
        'createComment',
        'listPhases',
        'streamProjectEvents',
      ]),
    );
    for (const absent of [
      'signUp',
      'uploadAttachments',
      'downloadAttachment',
      'createApiKey',
      'updateStories',
    ])
      expect(names).not.toContain(absent);
    const update = tools.find((t) => t.name === 'updateStory')!;
    expect(update.inputSchema.required).toEqual(
      expect.arrayContaining(['projectId', 'storyId', 'version', 'body']),
    );
    expect(update.outputSchema?.properties).toHaveProperty('version');
  });

  it('creates, moves, updates and comments on a story, all through tools', async () => {
    const created = await call(mcp, 'createStory', {
      projectId: project.id,
      body: { text: 'Write the MCP docs' },
    });
    expect(created).toMatchObject({ text: 'Write the MCP docs', phase: { id: phases[0]!.id }, version: 1 });

    const moved = await call(mcp, 'updateStory', {
      projectId: project.id,
      storyId: created.id,
      version: created.version,
      body: { phase: phases[1]!.id },
    });
    expect(moved).toMatchObject({ phase: { id: phases[1]!.id } });
    expect(moved.version).toBeGreaterThan(created.version);

    const updated = await call(mcp, 'updateStory', {
      projectId: project.id,
      storyId: created.id,
      version: moved.version,
      body: { color: 'green', priority: '3' },
    });
    expect(updated).toMatchObject({ color: 'green', priority: '3', phase: { id: phases[1]!.id } });

    const comment = await call(mcp, 'createComment', {
      projectId: project.id,
      storyId: created.id,
      body: { text: 'Drafted by an agent.' },
    });
    expect(comment).toMatchObject({ text: 'Drafted by an agent.', version: 1 });

    const read = await call(mcp, 'getStory', {
      projectId: project.id,
      storyId: created.id,
      with: ['comments'],
    });
    expect(read).toMatchObject({
      color: 'green',
      version: updated.version,
      comments: [{ text: 'Drafted by an agent.' }],
    });
    const viaApi = await readStory(created.id);
    expect(viaApi).toMatchObject({ color: 'green', priority: '3', phase: { id: phases[1]!.id } });
  });

  it('refuses a change made from a stale version, saying to read again, and writes nothing', async () => {
    const story = await call(mcp, 'createStory', { projectId: project.id, body: { text: 'Contested' } });
    // Someone else changes it after the agent read it.
    const other = await api(`${P()}/stories/${story.id}`, {
      key: owner.key,
      method: 'PUT',
      body: { details: 'Human edit' },
    });
    expect(other.status).toBe(200);

    const result = (await mcp.callTool({
      name: 'updateStory',
      arguments: {
        projectId: project.id,
        storyId: story.id,
        version: story.version,
        body: { text: 'Agent edit' },
      },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/changed since you read it, so nothing was written\. Read it again/);
    expect(await readStory(story.id)).toMatchObject({ text: 'Contested', details: 'Human edit' });

    const deleted = (await mcp.callTool({
      name: 'deleteStory',
      arguments: { projectId: project.id, storyId: story.id, version: story.version },
    })) as CallToolResult;
    expect(deleted.isError).toBe(true);
    expect((await api(`${P()}/stories/${story.id}`, { key: owner.key })).status).toBe(200);
  });

  it('does a retried create once: one story, the same answer', async () => {
    const args = { projectId: project.id, body: { text: 'Exactly once', details: 'retry me' } };
    const first = await call(mcp, 'createStory', args);
    const again = (await mcp.callTool({ name: 'createStory', arguments: args })) as CallToolResult;
    expect(again.structuredContent).toEqual(first);
    expect(textOf(again)).toMatch(/nothing was done twice/);
    const found = await api(`${P()}/stories?where=${encodeURIComponent('text:"Exactly once"')}`, {
      key: owner.key,
    });
    expect(found.json.totalItems).toBe(1);
    // A new idempotencyKey is a new, deliberate create.
    await call(mcp, 'createStory', { ...args, idempotencyKey: 'second-on-purpose' });
    const now = await api(`${P()}/stories?where=${encodeURIComponent('text:"Exactly once"')}`, {
      key: owner.key,
    });
    expect(now.json.totalItems).toBe(2);
  });

  it('changes only the fields an update gives: no other field is blanked', async () => {
    const full = {
      text: 'Fully described',
      details: 'Long details that must survive',
      size: '5',
      priority: '2',
      color: 'teal',
      owner: owner.userName,
      deadline: '2030-01-31',
      tags: ['agents', 'docs'],
      phase: phases[1]!.id,
    };
    const story = await call(mcp, 'createStory', { projectId: project.id, body: full });
    const before = await readStory(story.id);

    const renamed = await call(mcp, 'updateStory', {
      projectId: project.id,
      storyId: story.id,
      version: story.version,
      body: { text: 'Renamed only' },
    });
    expect(renamed.text).toBe('Renamed only');
    const after = await readStory(story.id);
    expect(after).toEqual({ ...before, text: 'Renamed only' });
    expect(after).toMatchObject({
      details: 'Long details that must survive',
      size: '5',
      priority: '2',
      color: 'teal',
      owner: { userName: owner.userName },
      phase: { id: phases[1]!.id },
    });
    expect(after.deadline).toMatch(/^2030-01-31/);
    expect((after.tags as Array<{ name: string }>).map((t) => t.name).sort()).toEqual(['agents', 'docs']);
  });

  it("lists the key's boards as resources and reads one with the stream's position, to catch up from", async () => {
    const { resources } = await mcp.listResources();
    const uri = `flowboard://projects/${project.id}/board`;
    expect(resources.map((r) => r.uri)).toContain(uri);
    const { resourceTemplates } = await mcp.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['flowboard://projects/{projectId}/board']);

    const read = await mcp.readResource({ uri });
    const board = JSON.parse((read.contents[0] as { text: string }).text);
    expect(board.projectId).toBe(project.id);
    expect(board.position).toMatch(/^1-/);
    expect(board.phases.map((p: { id: number }) => p.id)).toEqual(phases.map((p) => p.id));
    const texts = board.phases.flatMap((p: { stories?: Array<{ text: string }> }) =>
      (p.stories ?? []).map((s) => s.text),
    );
    expect(texts).toEqual(expect.arrayContaining(['Write the MCP docs', 'Renamed only']));

    // After a pause: what changed since the read, from its position.
    const story = await call(mcp, 'createStory', {
      projectId: project.id,
      body: { text: 'Made after the read' },
    });
    const batch = (await call(mcp, 'streamProjectEvents', {
      projectId: project.id,
      after: board.position,
      wait: 10,
    })) as unknown as { events: Array<{ event: string; data: { data: { id: number } } }>; position: string };
    expect(batch.events.map((e) => [e.event, e.data.data.id])).toContainEqual(['story.created', story.id]);
    expect(batch.position).not.toBe(board.position);
  });

  it('reports a bad argument without calling the API', async () => {
    const result = (await mcp.callTool({
      name: 'getStory',
      arguments: { projectId: project.id, storyId: 'not-an-id' },
    })) as CallToolResult;
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result)).toMatch(/Nothing was sent: 'storyId' must be a non-negative integer/);
  });

  it('serves the same tools on stdio (npm run mcp), over HTTP to the gateway', async () => {
    const story = await call(mcp, 'createStory', {
      projectId: project.id,
      body: { text: 'Read over stdio' },
    });
    const local = new Client({ name: 'flowboard-e2e-stdio', version: '1.0.0' });
    await local.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [STDIO_ENTRY, '--url', GATEWAY_URL],
        env: { FLOWBOARD_API_KEY: owner.key, PATH: process.env.PATH ?? '' },
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await local.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        (await mcp.listTools()).tools.map((t) => t.name).sort(),
      );
      const read = await call(local, 'getStory', { projectId: project.id, storyId: story.id });
      expect(read).toMatchObject({ id: story.id, text: 'Read over stdio', version: story.version });
    } finally {
      await local.close();
    }
  });
});

describe('MCP: what a scoped key sees and may do', () => {
  let owner: SignedUp;
  let project: { id: number; name: string };
  let other: { id: number; name: string };
  let phases: Array<{ id: number; name: string }>;
  const P = (id = project.id) => `/api/v1/projects/${id}`;
  const makeKey = async (body: Record<string, unknown>) => {
    const res = await api('/api/v1/me/apikeys', { method: 'POST', key: owner.key, body });
    expect(res.status).toBe(200);
    return res.json as { id: number; key: string };
  };

  beforeAll(async () => {
    owner = await signUp('mcp-scoped');
    project = await createProject(owner.key, 'Scoped agents');
    other = await createProject(owner.key, 'Off limits');
    phases = (await api(`${P()}?with=phases`, { key: owner.key })).json.phases;
  });

  it('a read-only key lists only read tools, reads the board, and cannot change it', async () => {
    const story = await api(`${P()}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'Look, do not touch' },
    });
    const { key } = await makeKey({ name: 'reader', access: 'read' });
    const mcp = await connectMcp(key);
    try {
      const { tools } = await mcp.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(['getStory', 'listStories', 'listPhases', 'streamProjectEvents']),
      );
      for (const write of ['createStory', 'updateStory', 'deleteStory', 'createComment', 'createProject']) {
        expect(names).not.toContain(write);
      }
      const board = await mcp.readResource({ uri: `flowboard://projects/${project.id}/board` });
      expect(board.contents[0]).toBeDefined();
      const read = await call(mcp, 'getStory', { projectId: project.id, storyId: story.json.id });
      expect(read).toMatchObject({ text: 'Look, do not touch' });
      // Called anyway (a client that cached another key's list): refused, nothing written.
      const result = (await mcp.callTool({
        name: 'updateStory',
        arguments: {
          projectId: project.id,
          storyId: story.json.id,
          version: read.version,
          body: { text: 'Touched' },
        },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/stories:write/);
      expect((await api(`${P()}/stories/${story.json.id}`, { key: owner.key })).json.text).toBe(
        'Look, do not touch',
      );
    } finally {
      await mcp.close();
    }
  });

  it('a read-write key limited to one project and the board moves a card safely there, and reaches nothing else', async () => {
    const story = await api(`${P()}/stories`, {
      method: 'POST',
      key: owner.key,
      body: { text: 'Move me', details: 'Keep me' },
    });
    const { key, id } = await makeKey({ name: 'mover', projects: [project.id], groups: ['stories'] });
    const mcp = await connectMcp(key);
    try {
      const names = (await mcp.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['updateStory', 'createStory', 'getStory']));
      expect(names).not.toContain('createComment');
      expect(names).not.toContain('createWebhook');
      const { resources } = await mcp.listResources();
      expect(resources.map((r) => r.uri)).toEqual([`flowboard://projects/${project.id}/board`]);

      const read = await call(mcp, 'getStory', { projectId: project.id, storyId: story.json.id });
      const start = await api(`${P()}/events?wait=0`, { key: owner.key });
      expect(start.status).toBe(200);
      const moved = await call(mcp, 'updateStory', {
        projectId: project.id,
        storyId: story.json.id,
        version: read.version,
        body: { phase: phases[1]!.id },
      });
      expect(moved).toMatchObject({ phase: { id: phases[1]!.id }, text: 'Move me' });
      const after = await api(`${P()}/stories/${story.json.id}?with=details`, { key: owner.key });
      expect(after.json).toMatchObject({ phase: { id: phases[1]!.id }, text: 'Move me', details: 'Keep me' });
      // The move says which key made it.
      const events = await api(`${P()}/events?after=${start.json.position}&wait=10`, { key: owner.key });
      expect(events.status).toBe(200);
      const move = events.json.events.find(
        (e: { event: string; data: { data: { id: number } } }) =>
          e.event === 'story.moved' && e.data.data.id === story.json.id,
      );
      expect(move?.data.actor.apiKey).toEqual({ id, name: 'mover' });
      const elsewhere = (await mcp.callTool({
        name: 'listStories',
        arguments: { projectId: other.id },
      })) as CallToolResult;
      expect(elsewhere.isError).toBe(true);
      expect(textOf(elsewhere)).toMatch(new RegExp(`limited to other projects`));
    } finally {
      await mcp.close();
    }
  });

  it('an expired key is refused: the connection fails with 401', async () => {
    const expiresAt = new Date(Date.now() + 2_000);
    const { key } = await makeKey({ name: 'brief', expiresAt: expiresAt.toISOString() });
    const mcp = await connectMcp(key);
    await mcp.close();
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 1_100));
    await expect(connectMcp(key)).rejects.toThrow(/401/);
  });
});
