import { createServer, Server, Socket, connect } from 'node:net';
import { AddressInfo } from 'node:net';

/**
 * A loopback TCP proxy that can be cut and restored on the same port: how tests make Redis
 * "unavailable" to the service and bring it back, without touching the shared Redis server.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Listens (again) on the same port; a no-op while already listening. */
  async start(): Promise<number> {
    // A second listener would fail on the port and, stored over the first, leave that one open.
    if (this.server) return this.port;
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  /** Drops every connection and stops listening (connections are then refused). */
  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}
