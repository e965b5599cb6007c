import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { env } from '../config/env';
import { logDestination, pinoHttpOptions } from './log-options';

/** The stream log lines are written to; a provider so a test can capture them. */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

/**
 * Structured logs (nestjs-pino): one pino logger per process, behind Nest's Logger once main.ts
 * calls app.useLogger(), and pino-http for one line per HTTP request. Configuration is read
 * when the module is instantiated, not when it is imported, so tests can set the environment.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      providers: [{ provide: LOG_DESTINATION, useFactory: () => logDestination(env()) }],
      inject: [LOG_DESTINATION],
      useFactory: (destination: DestinationStream) => ({ pinoHttp: [pinoHttpOptions(env()), destination] }),
    }),
  ],
})
export class LoggingModule {}
