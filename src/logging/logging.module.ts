import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { env } from '../config/env';
import { logDestination, loggerOptions } from './log-options';
import { requestLog } from './request-log';

/** The stream log lines are written to; a provider so a test can capture them. */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

/** One pino logger per process behind Nest's Logger, and one line per request (request-log.ts, not pino-http). */
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
