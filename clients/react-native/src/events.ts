import { ApiConfig, callApi, Fetch, retryable } from './api';
import type { StorageLike } from './installation';

export type EventType = 'received' | 'opened';

/** One client event (docs/api.md#reads-and-events), kept until the service took it. */
export interface PendingEvent {
  notificationId: string;
  installationId: string;
  type: EventType;
  action: string | null;
  occurredAt: string;
}

export const OUTBOX_KEY = 'pns:outbox';
/** Reports kept while the service cannot be reached; the oldest go first past this. */
export const OUTBOX_MAX = 100;

/**
 * Reports events; one that meets a lost connection or a retryable answer (429, 5xx) waits in
 * storage and goes with the next flush (the next start or return to the foreground). The service
 * counts each (notification, installation, type) once, so a report sent twice counts once.
 */
export class Outbox {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: StorageLike,
    private readonly api: ApiConfig,
    private readonly fetcher: Fetch,
  ) {}

  report(event: PendingEvent, onError: (error: unknown) => void): Promise<void> {
    return this.serial(async () => {
      try {
        await this.send(event);
      } catch (error) {
        if (!retryable(error)) return onError(error);
        await this.write([...(await this.read()), event]);
      }
    });
  }

  flush(onError: (error: unknown) => void): Promise<void> {
    return this.serial(async () => {
      const kept: PendingEvent[] = [];
      for (const event of await this.read()) {
        try {
          await this.send(event);
        } catch (error) {
          if (retryable(error)) kept.push(event);
          else onError(error);
        }
      }
      await this.write(kept);
    });
  }

  private send(event: PendingEvent): Promise<unknown> {
    const body = {
      installation_id: event.installationId,
      type: event.type,
      occurred_at: event.occurredAt,
      ...(event.action ? { action: event.action.slice(0, 64) } : {}),
    };
    return callApi(this.api, this.fetcher, 'POST', `/notifications/${encodeURIComponent(event.notificationId)}/events`, body);
  }

  private async read(): Promise<PendingEvent[]> {
    const stored = await this.storage.getItem(OUTBOX_KEY);
    return stored ? (JSON.parse(stored) as PendingEvent[]) : [];
  }

  private write(events: PendingEvent[]): Promise<void> {
    return this.storage.setItem(OUTBOX_KEY, JSON.stringify(events.slice(-OUTBOX_MAX)));
  }

  private serial(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
