import { Logger as PinoNestLogger, PinoLogger } from 'nestjs-pino';
import type { EnvironmentVariables } from '../config/env';
import { logDestination, loggerOptions } from './log-options';

/**
 * The process's pino logger as a Nest LoggerService, built before Nest is: main.ts gives it to
 * NestFactory, so the lines Nest writes while the application is being built, and those of a
 * start that fails (which a buffered logger would hand to Nest's coloured console logger), are
 * JSON too. nestjs-pino keeps one root logger per process, so LoggingModule's PinoLogger,
 * created later, writes through this same one.
 */
export function processLogger(config: Pick<EnvironmentVariables, 'LOG_LEVEL' | 'LOG_PRETTY'>): PinoNestLogger {
  const params = { pinoHttp: [loggerOptions(config), logDestination(config)] as [ReturnType<typeof loggerOptions>, ReturnType<typeof logDestination>] };
  return new PinoNestLogger(new PinoLogger(params), params);
}
