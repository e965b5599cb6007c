import 'reflect-metadata';
import { INestApplicationContext, Logger } from '@nestjs/common';
import { AllModule, ApiModule, WorkerModule } from './app.module';
import { createHttpApp, createWorkerContext } from './app.factory';
import { ConfigError, env } from './config/env';

/**
 * One build, three modes (APP_MODE): `api` serves HTTP, `worker` runs the queue processors with no
 * HTTP server, `all` does both in one process.
 */
async function bootstrap(): Promise<void> {
  let config;
  try {
    config = env();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = new Logger('Main');
  let app: INestApplicationContext;
  if (config.APP_MODE === 'worker') {
    app = await createWorkerContext(WorkerModule);
  } else {
    const http = await createHttpApp(config.APP_MODE === 'api' ? ApiModule : AllModule);
    await http.listen(config.PORT);
    app = http;
  }
  logger.log(`Started in ${config.APP_MODE} mode${config.APP_MODE === 'worker' ? '' : ` on port ${config.PORT}`}`);
  armShutdown(app, config.SHUTDOWN_TIMEOUT_MS);
}

/**
 * SIGTERM/SIGINT: app.close() stops accepting connections, waits for in-flight requests and
 * jobs, runs the shutdown hooks and closes PostgreSQL and Redis; then exit 0. Past the deadline,
 * exit 1 rather than hang.
 */
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
  process.stderr.write(`Failed to start: ${error.message}\n`);
  process.exit(1);
});
