import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { EnvironmentVariables } from '../config/env';
import { DatabaseSampler } from './database.sampler';
import { LaneDepthSampler } from './lane-depth.sampler';
import { MetricsService } from './metrics.service';
import { QueueDepthSampler } from './queue-depth.sampler';

/** Prometheus on METRICS_PORT, not the API's: tokenless, not public, and a worker has it too (with /health/live). */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(MetricsServer.name);
  private server?: Server;

  constructor(
    private readonly config: EnvironmentVariables,
    private readonly metrics: MetricsService,
    private readonly sampler: QueueDepthSampler,
    private readonly database: DatabaseSampler,
    private readonly lanes: LaneDepthSampler,
  ) {}

  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.METRICS_PORT === 0) return;
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: Error) => {
        this.logger.error(`Metrics request failed: ${error.message}`);
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end('metrics unavailable\n');
      });
    });
    // A port clash stops the start rather than running unobserved.
    await new Promise<void>((resolve, reject) => {
      const fail = (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRINUSE'
            ? new Error(`METRICS_PORT ${this.config.METRICS_PORT} is already in use: set another port, or 0 to turn metrics off`)
            : error,
        );
      server.once('error', fail);
      server.listen(this.config.METRICS_PORT, this.config.METRICS_HOST, () => {
        server.off('error', fail);
        resolve();
      });
    });
    this.server = server;
    this.logger.log(`Metrics on port ${this.port} at /metrics`);
  }

  async onModuleDestroy(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // A scraper keeps its connection open; close() alone would wait for it.
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('method not allowed\n');
    } else if (path === '/metrics') {
      await Promise.all([this.sampler.sample(), this.database.sample(), this.lanes.sample()]);
      const body = await this.metrics.registry.metrics();
      res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType }).end(req.method === 'HEAD' ? undefined : body);
    } else if (path === '/health/live') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
    }
  }
}
