import type { Server } from 'node:http';
import { connect } from 'node:net';
import { useTestApp } from '../support/create-test-app';
import { installationId, newApp } from '../support/factories';

/** Writes `head` on a TCP connection and never finishes; resolves with the status the server answers, if any. */
function trickle(port: number, head: string): Promise<number> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('close', () => done(Number(data.split(' ')[1])));
    socket.on('error', fail);
    socket.write(head);
  });
}

describe('slow clients are cut off at HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS (issue 26 item 7)', () => {
  // Before the app closes (hooks run in declaration order): connections left open would hold it.
  afterAll(() => (ctx.app.getHttpServer() as Server).closeAllConnections());
  const ctx = useTestApp({ env: { HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600' } });
  let port: number;

  beforeAll(async () => {
    const server: Server = ctx.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as { port: number }).port;
  });

  /** Resolves with the 408s of `count` connections that trickle, or rejects once `withinMs` is over. */
  const slowClients = (count: number, head: string, withinMs: number) =>
    Promise.race([
      Promise.all(Array.from({ length: count }, () => trickle(port, head))),
      new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`slow connections still open after ${withinMs} ms`)), withinMs).unref()),
    ]);

  it("answers 408 to 50 connections that never finish their headers, within a second or two, not Node's minute", async () => {
    expect(await slowClients(50, 'GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: a', 3000)).toEqual(Array(50).fill(408));
  });

  it('answers 408 to a body that never arrives', async () => {
    const { token } = await newApp(ctx);
    const head = `PUT /api/v1/installations/${installationId()} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`;
    expect(await slowClients(5, head, 3000)).toEqual(Array(5).fill(408));
  });
});
