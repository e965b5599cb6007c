import { ConsoleLogger, LogLevel } from '@nestjs/common';

/** The CLI's stdout carries only the command's JSON, so every log line goes to stderr. */
export class StderrLogger extends ConsoleLogger {
  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _stream?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack);
  }
}
