import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { env } from '../config/env';
import { logDestination, loggerOptions } from './log-options';
import { requestLog } from './request-log';

/** The stream log lines are written to; a provider so a test can capture them. */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

/**
 * Structured logs (nestjs-pino): one pino logger per process, behind Nest's Logger once main.ts
 * calls app.useLogger(), and one line per HTTP request (request-log.ts, in place of nestjs-pino's
 * pino-http middleware, which `forRoutes: []` leaves unmounted). Configuration is read when the
 * module is instantiated, not when it is imported, so tests can set the environment.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      providers: [{ provide: LOG_DESTINATION, useFactory: () => logDestination(env()) }],
      inject: [LOG_DESTINATION],
      useFactory: (destination: DestinationStream) => ({ pinoHttp: [loggerOptions(env()), destination], forRoutes: [] }),
    }),
  ],
})
export class LoggingModule implements NestModule {
  constructor(private readonly context: PinoLogger) {}

  configure(consumer: MiddlewareConsumer): void {
    // Every path, as nestjs-pino mounted pino-http (no leading slash: see its DEFAULT_ROUTES).
    consumer.apply(requestLog(this.context)).forRoutes({ path: '{/*splat}', method: RequestMethod.ALL });
  }
}
