import { INestApplicationContext, LoggerService, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';

/** The worker: its modules in an application context, no HTTP server; it logs through pino as createHttpApp does. */
export async function createWorkerContext(module: Type, logger?: LoggerService | false): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(module, logger === undefined ? { bufferLogs: true } : { logger });
  if (logger === undefined) app.useLogger(app.get(PinoLogger));
  return app;
}
