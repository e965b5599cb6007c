import { Command, CommandRunner, Option } from 'nest-commander';
import { runSandboxCommand } from '../sandbox/sandbox-command';

/** `pns sandbox` as the help lists it; cli.ts runs it (runSandboxCommand) before any configuration or module. */
@Command({
  name: 'sandbox',
  description: 'Serve loopback APNs, FCM and Web Push with an inbox for tests (docs/testing.md); needs no database, Redis or APP_KEY',
})
export class SandboxCommand extends CommandRunner {
  async run(): Promise<void> {
    await runSandboxCommand(process.argv.slice(3));
  }

  @Option({ flags: '--port <n>', description: 'its own API; APNs, FCM and Web Push on the next three ports (default 4400)' })
  parsePort(value: string): string {
    return value;
  }

  @Option({ flags: '--host <address>', description: 'the address to bind (default 127.0.0.1: loopback only)' })
  parseHost(value: string): string {
    return value;
  }

  @Option({ flags: '--url-host <name>', description: 'the host name in the URLs it prints (default: the bound address)' })
  parseUrlHost(value: string): string {
    return value;
  }

  @Option({ flags: '--dir <path>', description: 'where it keeps its CA and credentials (default PNS_SANDBOX_DIR or ~/.pns-sandbox)' })
  parseDir(value: string): string {
    return value;
  }

  @Option({ flags: '--apns-topic <topic>', description: 'a bundle id APNs accepts (repeatable; default dev.pns.sandbox)' })
  parseApnsTopic(value: string): string {
    return value;
  }

  @Option({ flags: '--inbox-limit <n>', description: 'pushes kept in the inbox, newest first (default 10000)' })
  parseInboxLimit(value: string): string {
    return value;
  }
}
