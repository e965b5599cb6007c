import { LoggerService } from '@nestjs/common';

/** One plain line per warning on stderr, as stdout holds only the JSON; cli.ts prints the error that ends a command. */
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

function contextOf(params: unknown[]): string | undefined {
  const last = params[params.length - 1];
  return typeof last === 'string' ? last : undefined;
}
