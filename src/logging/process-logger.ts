import { Logger as PinoNestLogger, PinoLogger } from 'nestjs-pino';
import type { EnvironmentVariables } from '../config/env';
import { logDestination, loggerOptions } from './log-options';

/** Nest's contexts that report its wiring (a line per module, controller and route): debug, not info. */
export const WIRING_CONTEXTS: ReadonlySet<string> = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

class ProcessLogger extends PinoNestLogger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    if (WIRING_CONTEXTS.has(optionalParams.at(-1) as string)) this.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }
}

/**
 * The process's pino logger as a Nest LoggerService, built before Nest is: main.ts gives it to
 * NestFactory, so the lines Nest writes while the application is being built, and those of a
 * failed start, are JSON too. LoggingModule's PinoLogger writes through this same root logger.
 */
export function processLogger(config: Pick<EnvironmentVariables, 'LOG_LEVEL' | 'LOG_PRETTY'>): PinoNestLogger {
  const params = { pinoHttp: [loggerOptions(config), logDestination(config)] as [ReturnType<typeof loggerOptions>, ReturnType<typeof logDestination>] };
  return new ProcessLogger(new PinoLogger(params), params);
}
