import { Logger as PinoNestLogger, PinoLogger } from 'nestjs-pino';
import type { EnvironmentVariables } from '../config/env';
import { logDestination, loggerOptions } from './log-options';

export const WIRING_CONTEXTS: ReadonlySet<string> = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

class ProcessLogger extends PinoNestLogger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    if (WIRING_CONTEXTS.has(optionalParams.at(-1) as string)) this.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }
}

/** pino as Nest's logger from before Nest starts, so its start-up lines and a failed start are JSON too. */
export function processLogger(config: Pick<EnvironmentVariables, 'LOG_LEVEL' | 'LOG_PRETTY'>): PinoNestLogger {
  const params = { pinoHttp: [loggerOptions(config), logDestination(config)] as [ReturnType<typeof loggerOptions>, ReturnType<typeof logDestination>] };
  return new ProcessLogger(new PinoLogger(params), params);
}
