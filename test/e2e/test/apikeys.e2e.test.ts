import { api, childNames, signUp, sorted, XML_HEADERS, type SignedUp } from './support';

/** `/me/apikeys` and `PUT /me` (docs/compat.md §5.1, §6). */
jest.setTimeout(60_000);

/** A key made without a scope, as listed: no expiry, limits or last use to show. */
const KEY_FIELDS = ['id', 'name', 'createTime', 'enabled', 'hint', 'access'];

let user: SignedUp;
beforeAll(async () => {
  user = await signUp('keys');
});

describe('API keys', () => {
  it('creates (full key once), lists and deletes; a deleted key gets 401 on the very next request', async () => {
    const created = await api('/api/v1/me/apikeys', { method: 'POST', key: user.key });
    expect(created.status).toBe(200);
    expect(Object.keys(created.json)).toEqual([...KEY_FIELDS, 'key']);
    const newKey: string = created.json.key;
    expect(newKey).toMatch(/^[0-9a-f]{32}$/);
    expect(created.json.hint).toBe(newKey.slice(-4));

    // Verified and cached by the gateway.
    expect((await api('/api/v1/me', { key: newKey })).status).toBe(200);
    const list = await api('/api/v1/me/apikeys', { key: newKey });
    expect(list.json.totalItems).toBe(2);
    for (const item of list.json.items) {
      // `lastUsedTime` shows once a gateway has sent the key's use (every 30 s): then in its place, a timestamp.
      expect(Object.keys(item).filter((k) => k !== 'lastUsedTime')).toEqual(KEY_FIELDS);
      if ('lastUsedTime' in item) {
        expect(Object.keys(item).indexOf('lastUsedTime')).toBe(5);
        expect(item.lastUsedTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      }
    }
    const xml = await api('/api/v1/me/apikeys', { key: user.key, headers: XML_HEADERS });
    expect(xml.text).toContain('<apiKeys>');
    expect(childNames(xml.text, 'apiKey').filter((n) => n !== 'lastUsedTime')).toEqual(sorted(KEY_FIELDS));
    expect(xml.text).not.toContain(newKey);

    const other = await signUp('keys-other');
    expect(
      (await api(`/api/v1/me/apikeys/${created.json.id}`, { method: 'DELETE', key: other.key })).status,
    ).toBe(404);
    const del = await api(`/api/v1/me/apikeys/${created.json.id}`, { method: 'DELETE', key: user.key });
    expect(del.status).toBe(200);
    expect((await api('/api/v1/me', { key: newKey })).status).toBe(401);
    expect((await api('/api/v1/me', { key: user.key })).status).toBe(200);
    expect((await api('/api/v1/me/apikeys', {})).status).toBe(401);
  });

  it('POST in XML answers an <apiKey> root', async () => {
    const res = await api('/api/v1/me/apikeys', { method: 'POST', key: user.key, headers: XML_HEADERS });
    expect(res.status).toBe(200);
    expect(childNames(res.text, 'apiKey')).toEqual(sorted([...KEY_FIELDS, 'key']));
  });
});

describe('PUT /me', () => {
  it('updates at once (despite the cached user) and refuses clashes with 409 naming the field', async () => {
    expect((await api('/api/v1/me', { key: user.key })).status).toBe(200); // cache the user
    const userName = `${user.userName}-x`;
    const res = await api('/api/v1/me', {
      method: 'PUT',
      key: user.key,
      body: { name: 'George Oscar', username: userName, bio: 'Illusions' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'George Oscar', userName, bio: 'Illusions', email: user.email });
    expect((await api('/api/v1/me', { key: user.key })).json).toMatchObject({
      userName,
      name: 'George Oscar',
    });

    const other = await signUp('me-other');
    const clash = await api('/api/v1/me', {
      method: 'PUT',
      key: user.key,
      body: { email: other.email.toUpperCase() },
    });
    expect(clash.status).toBe(409);
    expect(clash.json.detail).toContain('email');
    const nameClash = await api('/api/v1/me.xml', {
      method: 'PUT',
      key: user.key,
      body: { userName: other.userName },
    });
    expect(nameClash.status).toBe(409);
    expect(nameClash.text).toContain('userName');
    expect((await api('/api/v1/me', { method: 'PUT', key: user.key, body: { email: 'nope' } })).status).toBe(
      400,
    );
  });

  it('takes an XML body (<username>, order free, unknown elements ignored; <bio /> clears) and answers a <user>', async () => {
    const me = await signUp('me-xml');
    const XML_IO = { 'Content-Type': 'application/xml', Accept: 'application/xml' };
    const userName = `${me.userName}-renamed`;
    const res = await api('/api/v1/me', {
      method: 'PUT',
      key: me.key,
      headers: XML_IO,
      body: `<?xml version="1.0"?><user><bio>Never &lt;nude&gt;</bio><id>1</id><username>${userName}</username><colour>red</colour><name>Tobias &amp; Co</name></user>`,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(childNames(res.text, 'user')).toEqual(['bio', 'createTime', 'email', 'id', 'name', 'userName']);
    expect(res.text).toMatch(
      new RegExp(
        `^<\\?xml version="1.0" encoding="utf-8"\\?><user><bio>Never &lt;nude&gt;</bio><createTime>\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d</createTime><email>${me.email}</email><id>${me.id}</id><name>Tobias &amp; Co</name><userName>${userName}</userName></user>$`,
      ),
    );
    const after = await api('/api/v1/me', { key: me.key });
    expect(after.json).toMatchObject({ id: me.id, name: 'Tobias & Co', userName, bio: 'Never <nude>' });

    // Partial: only bio changes, and an empty element is "" for a string.
    const cleared = await api('/api/v1/me', {
      method: 'PUT',
      key: me.key,
      headers: XML_IO,
      body: '<user><bio /></user>',
    });
    expect(cleared.status).toBe(200);
    expect(cleared.text).toContain('<user><bio /><createTime>');
    expect((await api('/api/v1/me', { key: me.key })).json).toMatchObject({
      name: 'Tobias & Co',
      userName,
      email: me.email,
      bio: '',
    });
  });
});
