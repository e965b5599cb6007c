import { IDBFactory } from 'fake-indexeddb';
import { vi } from 'vitest';
import type { PushManagerLike, PushSubscriptionLike } from '../index';

/** A recorded request of FakeFetch. */
export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

export type Answer = { status: number; body?: unknown } | 'network-error';

/** `fetch` that records every request and answers from a queue of scripted answers (default 200). */
export class FakeFetch {
  readonly sent: Sent[] = [];
  private readonly answers: Answer[] = [];

  answer(...answers: Answer[]): void {
    this.answers.push(...answers);
  }

  readonly fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    this.sent.push({
      method: init.method ?? 'GET',
      url: input instanceof Request ? input.url : String(input),
      headers: init.headers as Record<string, string>,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    const answer = this.answers.shift() ?? { status: 200, body: { data: {} } };
    if (answer === 'network-error') throw new TypeError('Failed to fetch');
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status });
  }) as unknown as typeof fetch & ReturnType<typeof vi.fn>;

  /** Requests as `METHOD path` (path after /api/v1). */
  get routes(): string[] {
    return this.sent.map((r) => `${r.method} ${new URL(r.url).pathname.replace('/api/v1', '')}`);
  }
}

let counter = 0;

export class FakeSubscription implements PushSubscriptionLike {
  unsubscribed = false;
  readonly endpoint = `https://push.example.net/push/${++counter}`;
  constructor(
    private readonly manager: FakePushManager,
    readonly options: { applicationServerKey: ArrayBuffer },
  ) {}

  toJSON() {
    return { endpoint: this.endpoint, expirationTime: null, keys: { p256dh: `p256dh-${counter}`, auth: `auth-${counter}` } };
  }

  async unsubscribe() {
    this.unsubscribed = true;
    if (this.manager.current === this) this.manager.current = null;
    return true;
  }
}

/** A push manager that subscribes without any push service, like a browser's but in memory. */
export class FakePushManager implements PushManagerLike {
  current: FakeSubscription | null = null;
  readonly subscribeCalls: { userVisibleOnly: boolean; applicationServerKey: Uint8Array }[] = [];

  async getSubscription() {
    return this.current;
  }

  async subscribe(options: { userVisibleOnly: boolean; applicationServerKey: Uint8Array<ArrayBuffer> }) {
    this.subscribeCalls.push(options);
    this.current = new FakeSubscription(this, { applicationServerKey: options.applicationServerKey.slice().buffer });
    return this.current;
  }

  /** The browser replaced the subscription (as before a `pushsubscriptionchange`). */
  rotate(): FakeSubscription {
    this.current = new FakeSubscription(this, this.current!.options);
    return this.current;
  }
}

/**
 * A fresh, empty IndexedDB and browser globals for one test: `Notification`, `navigator`
 * (language, serviceWorker.register, permissions.query with a change event the test can fire).
 */
export function browserGlobals(options: { permission?: NotificationPermission; answer?: NotificationPermission } = {}) {
  vi.stubGlobal('indexedDB', new IDBFactory());
  const notification = {
    permission: options.permission ?? 'default',
    requestPermission: vi.fn(async () => {
      notification.permission = options.answer ?? 'granted';
      return notification.permission;
    }),
  };
  vi.stubGlobal('Notification', notification);
  const permissionStatus = new EventTarget();
  const registration = { active: {}, scope: 'https://shop.example.com/' };
  const register = vi.fn(async () => registration);
  vi.stubGlobal('navigator', {
    language: 'fr-FR',
    serviceWorker: { register },
    permissions: { query: vi.fn(async () => permissionStatus) },
  });
  return {
    notification,
    register,
    /** The user changes the permission in the browser's settings. */
    async changePermission(permission: NotificationPermission) {
      notification.permission = permission;
      permissionStatus.dispatchEvent(new Event('change'));
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}
