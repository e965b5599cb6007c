import { type Permission, type Platform, type PushAdapter, type PushMessage, readPush } from './types';

/** The part of a `RemoteMessage` of @react-native-firebase/messaging the SDK reads. */
export interface RemoteMessageLike {
  messageId?: string;
  data?: { [key: string]: string | object };
  notification?: { title?: string; body?: string };
}

/**
 * The part of `messaging()` (@react-native-firebase/messaging's `FirebaseMessagingTypes.Module`)
 * the SDK calls, with the library's own names and signatures.
 */
export interface FirebaseMessagingLike {
  getToken(): Promise<string>;
  getAPNSToken(): Promise<string | null>;
  registerDeviceForRemoteMessages(): Promise<void>;
  readonly isDeviceRegisteredForRemoteMessages: boolean;
  hasPermission(): Promise<number>;
  requestPermission(permissions?: Record<string, boolean>): Promise<number>;
  onTokenRefresh(listener: (token: string) => unknown): () => void;
  onMessage(listener: (message: RemoteMessageLike) => unknown): () => void;
  onNotificationOpenedApp(listener: (message: RemoteMessageLike) => unknown): () => void;
  getInitialNotification(): Promise<RemoteMessageLike | null>;
  setBackgroundMessageHandler(handler: (message: RemoteMessageLike) => Promise<unknown>): void;
}

/** `messaging.AuthorizationStatus`: NOT_DETERMINED -1, DENIED 0, AUTHORIZED 1, PROVISIONAL 2, EPHEMERAL 3. */
export function firebasePermission(status: number): Permission {
  if (status === -1) return 'unknown';
  return status >= 1 ? 'granted' : 'denied';
}

export const firebaseMessage = (message: RemoteMessageLike): PushMessage => readPush(message.data, message.notification?.title, message.notification?.body);

/**
 * @react-native-firebase/messaging: on iOS the APNs device token (`getAPNSToken`: the service
 * reaches iOS through APNs, not through FCM), on Android the FCM registration token (`getToken`).
 * Firebase has no word for which action button was tapped: `opened` carries no action.
 */
export function firebaseAdapter(messaging: FirebaseMessagingLike, platform: Platform): PushAdapter {
  const apnsToken = async (): Promise<string | null> => {
    const token = await messaging.getAPNSToken();
    if (token || messaging.isDeviceRegisteredForRemoteMessages) return token;
    await messaging.registerDeviceForRemoteMessages();
    return messaging.getAPNSToken();
  };
  return {
    library: 'firebase',
    permission: async () => firebasePermission(await messaging.hasPermission()),
    requestPermission: async () => firebasePermission(await messaging.requestPermission()),
    token: async () => {
      const token = platform === 'ios' ? await apnsToken() : await messaging.getToken();
      return token ? { platform, token } : null;
    },
    onTokenChange: (listener) => messaging.onTokenRefresh(() => listener()),
    onReceived: (listener) => messaging.onMessage((message) => listener(firebaseMessage(message))),
    onOpened: (listener) => messaging.onNotificationOpenedApp((message) => listener(firebaseMessage(message), null)),
    initialOpened: async () => {
      const message = await messaging.getInitialNotification();
      return message ? { message: firebaseMessage(message), action: null } : null;
    },
  };
}
