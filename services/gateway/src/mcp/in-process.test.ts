import express from 'express';
import { inProcessApi } from './in-process';

describe('the gateway reached in memory', () => {
  const app = express();
  app.set('trust proxy', false);
  app.use(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    res.setHeader('ETag', '"v2-ab"');
    res.json({
      ip: req.ip,
      url: req.url,
      key: req.headers['x-zen-apikey'],
      ifMatch: req.headers['if-match'],
      body,
    });
  });
  const as = inProcessApi(app);

  it('serves a request as from the caller: its address, its key, JSON both ways', async () => {
    const api = as({ apiKey: 'k1', remoteAddress: '203.0.113.9' });
    const answer = await api.send({
      method: 'PUT',
      path: '/api/v1/x?with=tags',
      headers: { 'if-match': '"v1-0"' },
      body: { text: 'é' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.etag).toBe('"v2-ab"');
    expect(JSON.parse(answer.body)).toEqual({
      ip: '203.0.113.9',
      url: '/api/v1/x?with=tags',
      key: 'k1',
      ifMatch: '"v1-0"',
      body: '{"text":"é"}',
    });
  });

  it('keeps callers apart, and serves many at once', async () => {
    const answers = await Promise.all(
      ['198.51.100.1', '198.51.100.2', '2001:db8::3'].map((address) =>
        as({ apiKey: undefined, remoteAddress: address }).send({ method: 'GET', path: '/' }),
      ),
    );
    expect(answers.map((a) => [JSON.parse(a.body).ip, JSON.parse(a.body).key])).toEqual([
      ['198.51.100.1', undefined],
      ['198.51.100.2', undefined],
      ['2001:db8::3', undefined],
    ]);
  });
});
