import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as dbus from 'dbus-next';

/** A notification as the desktop received it: `actions` pairs each key with its label. */
export interface DesktopNotification {
  id: number;
  summary: string;
  body: string;
  actions: { key: string; label: string }[];
  closed: boolean;
}

const NAME = 'org.freedesktop.Notifications';
const PATH = '/org/freedesktop/Notifications';

/**
 * The desktop's notification server (freedesktop.org Desktop Notifications over D-Bus), where
 * Chromium on Linux shows web notifications. `click` is what a person's click on it (or on one
 * of its buttons) does: the server emits ActionInvoked, and Chromium dispatches the real
 * `notificationclick` to the service worker.
 */
class NotificationServer extends dbus.interface.Interface {
  readonly shown: DesktopNotification[] = [];
  private next = 1;

  constructor() {
    super(NAME);
  }

  GetCapabilities(): string[] {
    return ['actions', 'body'];
  }

  Notify(_app: string, replaces: number, _icon: string, summary: string, body: string, actions: string[]): number {
    const pairs = [];
    for (let i = 0; i + 1 < actions.length; i += 2) pairs.push({ key: actions[i], label: actions[i + 1] });
    const notification = { id: replaces || this.next++, summary, body, actions: pairs, closed: false };
    // A replacement (a repeated tag) takes the place of the one it replaces, as on a desktop.
    const at = this.shown.findIndex((n) => n.id === replaces);
    if (replaces && at !== -1) this.shown[at] = notification;
    else this.shown.push(notification);
    return notification.id;
  }

  CloseNotification(id: number): void {
    for (const n of this.shown) if (n.id === id) n.closed = true;
    this.NotificationClosed(id, 3);
  }

  GetServerInformation(): string[] {
    return ['e2e-desktop', 'push-notification-service', '1.0', '1.2'];
  }

  ActionInvoked(id: number, key: string): [number, string] {
    return [id, key];
  }

  NotificationClosed(id: number, reason: number): [number, number] {
    return [id, reason];
  }
}

NotificationServer.configureMembers({
  methods: {
    GetCapabilities: { inSignature: '', outSignature: 'as' },
    Notify: { inSignature: 'susssasa{sv}i', outSignature: 'u' },
    CloseNotification: { inSignature: 'u', outSignature: '' },
    GetServerInformation: { inSignature: '', outSignature: 'ssss' },
  },
  signals: { ActionInvoked: { signature: 'us' }, NotificationClosed: { signature: 'uu' } },
});

export interface Desktop {
  /** For the browser's environment: its session bus. */
  env: { DBUS_SESSION_BUS_ADDRESS: string };
  shown: DesktopNotification[];
  /** A click on the notification's body (`default`), or on the button with this label. */
  click(notification: DesktopNotification, button?: string): void;
  stop(): Promise<void>;
}

/** A private session bus (dbus-daemon) with the notification server on it. */
export async function startDesktop(): Promise<Desktop> {
  if (!existsSync('/usr/bin/dbus-daemon')) throw new Error('/usr/bin/dbus-daemon is missing: apt-get install dbus-daemon');
  const daemon: ChildProcess = spawn('/usr/bin/dbus-daemon', ['--session', '--nofork', '--nopidfile', '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const address = await new Promise<string>((resolve, reject) => {
    let text = '';
    daemon.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0].trim());
    });
    daemon.once('exit', (code) => reject(new Error(`dbus-daemon exited (${code})`)));
  });
  const bus = dbus.sessionBus({ busAddress: address });
  const server = new NotificationServer();
  bus.export(PATH, server);
  await bus.requestName(NAME, 0);
  return {
    env: { DBUS_SESSION_BUS_ADDRESS: address },
    shown: server.shown,
    click(notification, button) {
      const key = button === undefined ? 'default' : notification.actions.find((a) => a.label === button)?.key;
      if (key === undefined) throw new Error(`"${notification.summary}" has no button "${button}"`);
      server.ActionInvoked(notification.id, key);
    },
    async stop() {
      bus.disconnect();
      daemon.kill();
      if (daemon.exitCode === null) await new Promise((done) => daemon.once('exit', done));
    },
  };
}
