import { Fetch } from './api';
import { firebaseMessage, RemoteMessageLike } from './adapters/firebase';
import { Outbox } from './events';
import { readState, StorageLike } from './installation';

export interface BackgroundOptions {
  baseUrl: string;
  token: string;
  storage: StorageLike;
  fetch?: Fetch;
  now?: () => number;
  onError?: (error: unknown) => void;
}

/**
 * For `messaging().setBackgroundMessageHandler(...)` (@react-native-firebase/messaging), called
 * in your index.js before the app registers: reports `received` for a push that arrives while the
 * app is in the background or quit, with the installation id the app keeps in `storage`.
 */
export function backgroundMessageHandler(options: BackgroundOptions): (message: RemoteMessageLike) => Promise<void> {
  const fetcher: Fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const outbox = new Outbox(options.storage, { baseUrl: options.baseUrl, token: options.token }, fetcher);
  const onError = options.onError ?? console.warn;
  return async (message) => {
    const { notificationId } = firebaseMessage(message);
    if (!notificationId) return;
    const { id } = await readState(options.storage);
    const occurredAt = new Date((options.now ?? Date.now)()).toISOString();
    await outbox.report({ notificationId, installationId: id, type: 'received', action: null, occurredAt }, onError);
  };
}
