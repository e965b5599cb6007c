import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PinoLogger } from 'nestjs-pino';
import { loggerOptions } from './log-options';
import { requestLog } from './request-log';

/** What the logger writes: its chunks, and each line parsed. */
const written: string[] = [];
const sink = { write: (chunk: string) => written.push(chunk) > 0 };
const writtenLines = (): Record<string, any>[] =>
  written.flatMap((chunk) =>
    chunk
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line)),
  );

describe('requestLog', () => {
  // Sets PinoLogger.root, as LoggingModule's does in the app.
  const context = new PinoLogger({ pinoHttp: [loggerOptions({ LOG_LEVEL: 'info' }), sink] });
  const middleware = requestLog(context);
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) =>
      middleware(req, res, () => {
        context.info('while handling');
        // Later turns of the event loop keep the request's context.
        setImmediate(() => {
          context.warn('a turn later');
          res.statusCode = req.url === '/fail' ? 500 : 200;
          res.end('ok');
        });
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const linesOf = (requestId: string) => writtenLines().filter((line) => line.request_id === requestId);

  it("tags every line logged while handling a request with its id, then writes the request's line", async () => {
    const res = await fetch(`${base}/things/7?page=2&access_token=SECRET-1`, { headers: { 'X-Request-Id': 'req-1', Authorization: 'Bearer SECRET-2' } });
    expect(res.headers.get('x-request-id')).toBe('req-1');
    await res.text();
    const lines = linesOf('req-1');
    expect(lines.map((line) => line.msg)).toEqual(['while handling', 'a turn later', 'request completed']);
    expect(lines[2]).toMatchObject({
      level: 30,
      req: { method: 'GET', url: '/things/7?page=2&access_token=[Redacted]', headers: { authorization: '[Redacted]' } },
      res: { statusCode: 200, headers: { 'x-request-id': 'req-1' } },
    });
    expect(lines[2].responseTime).toEqual(expect.any(Number));
    expect(written.join('')).not.toContain('SECRET-');
  });

  it('writes a 5xx as an error line', async () => {
    await (await fetch(`${base}/fail`, { headers: { 'X-Request-Id': 'req-2' } })).text();
    expect(linesOf('req-2').at(-1)).toMatchObject({
      level: 50,
      msg: 'request errored',
      res: { statusCode: 500 },
      err: { message: 'failed with status code 500' },
    });
  });

  it('gives health probes an id but no line of their own', async () => {
    const res = await fetch(`${base}/health/live`);
    await res.text();
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(linesOf(id).map((line) => line.msg)).toEqual(['while handling', 'a turn later']);
  });

  it('writes one line for a request whose client went away', async () => {
    const aborted = new AbortController();
    let closed!: () => void;
    const responseClosed = new Promise<void>((resolve) => (closed = resolve));
    const slow = createServer((req, res) => {
      res.on('close', () => setImmediate(closed));
      middleware(req, res, () => aborted.abort());
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
    await expect(fetch(url, { headers: { 'X-Request-Id': 'req-3' }, signal: aborted.signal })).rejects.toThrow();
    await responseClosed;
    await new Promise((resolve) => slow.close(resolve));
    expect(linesOf('req-3').map((line) => line.msg)).toEqual(['request completed']);
  });
});
