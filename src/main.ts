import 'reflect-metadata';
import { INestApplicationContext, Logger } from '@nestjs/common';
import { QUEUES } from './common/queues';
import { ConfigError, env } from './config/env';
import { runsQueue } from './queue/worker-options';
import { DatabaseUnreachableError, waitForDatabase } from './database/wait-for-database';
import { resolveDatabaseUrl } from './database/embedded/resolve-database-url';
import { processLogger } from './logging/process-logger';
import { serviceVersion, startedLine } from './logging/startup-line';

/** APP_MODE: `api` serves HTTP, `worker` runs the queue processors with no HTTP server, `all` both. */
async function bootstrap(): Promise<void> {
  let config;
  let embedded: string | undefined;
  try {
    embedded = await resolveDatabaseUrl();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
  try {
    config = env();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const nestLogger = processLogger(config);
  Logger.overrideLogger(nestLogger);
  const logger = new Logger('Main');
  if (embedded) logger.log(embedded);
  // Before Nest, so an unreachable or missing database is one line at once, not a silent wait.
  await waitForDatabase(config.DATABASE_URL, config.DATABASE_CONNECT_TIMEOUT_MS);
  let app: INestApplicationContext;
  // Each mode loads only its own code: a worker never loads the API's controllers, Express or Swagger.
  if (config.APP_MODE === 'worker') {
    const [{ WorkerModule }, { createWorkerContext }] = await Promise.all([import('./worker.module.js'), import('./worker.factory.js')]);
    app = await createWorkerContext(WorkerModule, nestLogger);
  } else {
    const [{ AllModule, ApiModule }, { createHttpApp }] = await Promise.all([import('./app.module.js'), import('./app.factory.js')]);
    const http = await createHttpApp(config.APP_MODE === 'api' ? ApiModule : AllModule, nestLogger);
    await (config.HOST === undefined ? http.listen(config.PORT) : http.listen(config.PORT, config.HOST));
    app = http;
  }
  const queues = config.APP_MODE !== 'api' && config.WORKER_QUEUES !== undefined ? QUEUES.filter((queue) => runsQueue(config.WORKER_QUEUES, queue)) : undefined;
  logger.log(startedLine(config, serviceVersion(), queues));
  armShutdown(app, config.SHUTDOWN_TIMEOUT_MS);
}

/** SIGTERM/SIGINT: app.close() finishes in-flight requests and jobs, then exit 0; past the deadline, exit 1 rather than hang. */
function armShutdown(app: INestApplicationContext, timeoutMs: number): void {
  const logger = new Logger('Shutdown');
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: finishing in-flight work`);
    setTimeout(() => {
      process.stderr.write(`Shutdown took longer than ${timeoutMs} ms; exiting.\n`);
      process.exit(1);
    }, timeoutMs).unref();
    app.close().then(
      () => process.exit(0),
      (error: Error) => {
        process.stderr.write(`Shutdown failed: ${error.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

bootstrap().catch((error: Error) => {
  // One JSON line (the logger is pino's by now); the stack only where it says more than the message.
  const expected = error instanceof DatabaseUnreachableError;
  new Logger('Main').fatal(`Failed to start: ${error.message}`, ...(expected ? [] : [error.stack]));
  process.exit(1);
});
