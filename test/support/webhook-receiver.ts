import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** One call a receiver got, as it arrived. */
export interface ReceivedCall {
  path: string;
  headers: Record<string, string>;
  /** The raw body: signatures are over these exact bytes. */
  body: string;
  at: number;
  /** The answer it was given ('hang': none, the connection was held until the caller gave up). */
  answer: number | 'hang';
}

/** How a path answers its next calls, in order; past the list, 200. */
export type Answer = number | { hangMs: number };

/**
 * A webhook receiver on loopback (docs/api.md#webhooks): records every call and answers each path as
 * scripted. A hanging answer holds the request open `hangMs` (the caller should give up first).
 */
export class WebhookReceiver {
  readonly calls: ReceivedCall[] = [];
  private readonly scripts = new Map<string, Answer[]>();
  private readonly open = new Set<ServerResponse>();
  private server?: Server;

  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((done) => this.server!.listen(port, '127.0.0.1', done));
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  script(path: string, answers: Answer[]): void {
    this.scripts.set(path, [...answers]);
  }

  to(path: string): ReceivedCall[] {
    return this.calls.filter((call) => call.path === path);
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server!.close(() => done()));
    this.server = undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = this.scripts.get(req.url ?? '')?.shift() ?? 200;
    const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
    this.calls.push({
      path: req.url ?? '',
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
      at: Date.now(),
      answer: typeof answer === 'number' ? answer : 'hang',
    });
    if (typeof answer === 'number') {
      res.writeHead(answer).end();
      return;
    }
    this.open.add(res);
    setTimeout(() => {
      this.open.delete(res);
      if (!res.destroyed) res.writeHead(200).end();
    }, answer.hangMs).unref();
  }
}
