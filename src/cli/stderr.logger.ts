import { LoggerService } from '@nestjs/common';

/**
 * The CLI's logger. Stdout carries only the command's JSON and a failure is one line on stderr,
 * so warnings and errors are written to stderr as one plain line each: no colours, no timestamps,
 * no stack traces. Nest's ExceptionHandler is left out: the error it reports (e.g. the database
 * refusing the connection while modules start) is what ends the command, and cli.ts prints it.
 */
export class StderrLogger implements LoggerService {
  log(): void {}
  debug(): void {}
  verbose(): void {}

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warning', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    if (contextOf(params) === 'ExceptionHandler') return;
    this.write('error', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.error(message, ...params);
  }

  private write(level: string, message: unknown, params: unknown[]): void {
    const text = message instanceof Error ? message.message : String(message);
    const context = contextOf(params);
    process.stderr.write(`${level}${context ? ` [${context}]` : ''}: ${text.split('\n')[0]}\n`);
  }
}

/** Nest's Logger passes its context as the last parameter. */
function contextOf(params: unknown[]): string | undefined {
  const last = params[params.length - 1];
  return typeof last === 'string' ? last : undefined;
}
