import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sandbox } from './sandbox';

/** One request to the sandbox's API with the given Host header, as a page served by a rebound name would send. */
function call(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = request(`${url}${path}`, { method, headers: { ...length, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Issue 57 item 4: the sandbox's API (docs/testing.md#the-sandbox-api) against DNS rebinding and cross-site forms. */
describe("the sandbox's API", () => {
  const dir = mkdtempSync(join(tmpdir(), 'pns-sandbox-api-'));
  let sandbox: Sandbox;
  let url: string;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    sandbox = await Sandbox.start({ dir, port: 0, allowedHosts: ['qa-sandbox.internal'] });
    url = sandbox.info.url;
  }, 30_000);
  afterAll(async () => {
    await sandbox?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers loopback host names and the configured ones, with or without a port', async () => {
    const port = new URL(url).port;
    for (const host of [`localhost:${port}`, 'localhost', `127.0.0.1:${port}`, '127.8.9.10', `[::1]:${port}`, 'LOCALHOST', `qa-sandbox.internal:${port}`]) {
      expect({ host, status: (await call(url, 'GET', '/inbox', { host })).status }).toEqual({ host, status: 200 });
    }
  });

  it('refuses any other Host: a page on a rebound name reads no inbox and changes nothing', async () => {
    for (const host of ['evil.example', 'evil.example:4400', 'localhost.evil.example', '127.0.0.1.evil.example', '10.0.0.1', '[::2]']) {
      for (const [method, path] of [
        ['GET', '/'],
        ['GET', '/inbox'],
        ['GET', '/behaviours'],
        ['DELETE', '/inbox'],
      ]) {
        const answer = await call(url, method, path, { host });
        expect({ host, method, path, status: answer.status }).toEqual({ host, method, path, status: 403 });
        expect(answer.body.message).toMatch(/host/i);
      }
    }
  });

  it('refuses a body that is not JSON on its mutating routes with 415', async () => {
    const plain = { 'content-type': 'text/plain' };
    expect(await call(url, 'PUT', '/behaviours/abc', plain, '{"behaviour":"bad_token"}')).toMatchObject({ status: 415 });
    expect(await call(url, 'PUT', '/behaviours/abc', {}, '{"behaviour":"bad_token"}')).toMatchObject({ status: 415 });
    expect(await call(url, 'POST', '/web-push/subscriptions', plain, '{}')).toMatchObject({ status: 415 });
    expect(await call(url, 'POST', '/web-push/subscriptions', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=b')).toMatchObject({ status: 415 });
    expect(await call(url, 'POST', '/web-push/subscriptions')).toMatchObject({ status: 415 });
    expect(await call(url, 'DELETE', '/inbox', plain, 'x')).toMatchObject({ status: 415 });
    expect(sandbox.behaviours.list()).toEqual({});
    // JSON, with a charset or not, is taken; a DELETE needs no body.
    expect(await call(url, 'PUT', '/behaviours/abc', { 'content-type': 'application/json; charset=utf-8' }, '{"behaviour":"bad_token"}')).toMatchObject({
      status: 200,
    });
    expect(await call(url, 'POST', '/web-push/subscriptions', json, '{}')).toMatchObject({ status: 201 });
    expect(await call(url, 'DELETE', '/behaviours')).toMatchObject({ status: 204 });
  });

  it('keeps a behaviour for the token __proto__ like any other', async () => {
    sandbox.behaviours.clear();
    const set = await call(url, 'PUT', '/behaviours/__proto__', json, '{"behaviour":"unregistered"}');
    expect(set).toEqual({ status: 200, body: { token: '__proto__', behaviour: 'unregistered' } });
    const listed = await call(url, 'GET', '/behaviours');
    expect(Object.entries(listed.body.data)).toEqual([['__proto__', { behaviour: 'unregistered' }]]);
    expect(sandbox.behaviours.apns('__proto__')).toEqual({ status: 410, reason: 'Unregistered' });
    expect(sandbox.behaviours.apns('constructor')).toBeUndefined();
    await call(url, 'DELETE', '/behaviours');
  });

  it('answers 400 to a token that is not valid percent-encoding, and keeps a well-encoded one', async () => {
    sandbox.behaviours.clear();
    for (const path of ['/behaviours/%', '/behaviours/ab%zz', '/behaviours/%E0%A4%A']) {
      const answer = await call(url, 'PUT', path, json, '{"behaviour":"bad_token"}');
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect(answer.body.message).toMatch(/percent-encod/);
    }
    expect(sandbox.behaviours.list()).toEqual({});
    expect(await call(url, 'PUT', '/behaviours/a%25b', json, '{"behaviour":"bad_token"}')).toMatchObject({ status: 200, body: { token: 'a%b' } });
    await call(url, 'DELETE', '/behaviours');
  });
});
