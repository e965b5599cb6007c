import { Command, CommandRunner, Option } from 'nest-commander';
import { WEBHOOK_EVENT_TYPES } from '../common/webhook-events';
import { WebhookError } from '../webhooks/webhook-rules';
import { WebhooksService } from '../webhooks/webhooks.service';
import { AuditLog, cliActor } from '../audit/audit-log.service';
import { CliError, printJson } from './cli-error';

/** The operator's mistakes (bad URL, unknown event or app) are one line on stderr, exit 1. */
async function asCliErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WebhookError) throw new CliError(error.message);
    throw error;
  }
}

/** docs/api.md#webhooks: prints the new webhook with its signing secret, shown only this once. */
@Command({ name: 'webhooks:create', description: 'Create a webhook; its signing secret is shown only this once' })
export class WebhooksCreateCommand extends CommandRunner {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: { app: string; url: string; events: string }): Promise<void> {
    const webhook = await asCliErrors(() => this.webhooks.create(options.app, options.url, options.events));
    await this.audit.record(cliActor(), { action: 'webhook.create', appId: options.app, target: options.url, details: { events: options.events } });
    printJson(webhook);
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }

  @Option({ flags: '--url <url>', description: 'http:// or https:// URL to POST events to', required: true })
  parseUrl(value: string): string {
    return value;
  }

  @Option({ flags: '--events <list>', description: `comma-separated: ${WEBHOOK_EVENT_TYPES.join(', ')}`, required: true })
  parseEvents(value: string): string {
    return value;
  }
}

@Command({ name: 'webhooks:list', description: "List an app's webhooks (never their secrets)" })
export class WebhooksListCommand extends CommandRunner {
  constructor(private readonly webhooks: WebhooksService) {
    super();
  }

  async run(_params: string[], options: { app: string }): Promise<void> {
    printJson(await asCliErrors(() => this.webhooks.list(options.app)));
  }

  @Option({ flags: '--app <id>', description: 'app id', required: true })
  parseApp(value: string): string {
    return value;
  }
}

/** Deletes a webhook with the messages still owed to it: no call to it starts afterwards. */
@Command({ name: 'webhooks:delete', description: 'Delete a webhook; calls to it stop' })
export class WebhooksDeleteCommand extends CommandRunner {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: { id: string }): Promise<void> {
    const deleted = await asCliErrors(() => this.webhooks.delete(options.id));
    await this.audit.record(cliActor(), { action: 'webhook.delete', target: options.id });
    printJson(deleted);
  }

  @Option({ flags: '--id <id>', description: 'webhook id', required: true })
  parseId(value: string): string {
    return value;
  }
}
