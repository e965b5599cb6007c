import { type Permission, type PushAdapter, type PushMessage, readPush } from './types';

/** expo-notifications' `DevicePushToken`: the native APNs or FCM token (not the Expo push token). */
export interface DevicePushTokenLike {
  type: string;
  data: unknown;
}

/** expo-notifications' `NotificationPermissionsStatus`; `ios.status` is its `IosAuthorizationStatus`. */
export interface ExpoPermissionsLike {
  status: 'granted' | 'denied' | 'undetermined';
  granted: boolean;
  canAskAgain: boolean;
  expires: 'never' | number;
  ios?: { status: number };
  android?: { importance: number };
}

/** expo-notifications' `Notification`, as far as the SDK reads it. */
export interface ExpoNotificationLike {
  date: number;
  request: {
    identifier: string;
    content: { title: string | null; body: string | null; data: Record<string, unknown> | null };
    trigger: { type: string; payload?: Record<string, unknown>; remoteMessage?: { data: Record<string, string> } } | null;
  };
}

export interface ExpoNotificationResponseLike {
  notification: ExpoNotificationLike;
  actionIdentifier: string;
  userText?: string;
}

export interface EventSubscriptionLike {
  remove(): void;
}

/** The part of `import * as Notifications from 'expo-notifications'` the SDK calls, with the library's names. */
export interface ExpoNotificationsLike {
  getDevicePushTokenAsync(): Promise<DevicePushTokenLike>;
  getPermissionsAsync(): Promise<ExpoPermissionsLike>;
  requestPermissionsAsync(permissions?: Record<string, unknown>): Promise<ExpoPermissionsLike>;
  addPushTokenListener(listener: (token: DevicePushTokenLike) => void): EventSubscriptionLike;
  addNotificationReceivedListener(listener: (notification: ExpoNotificationLike) => void): EventSubscriptionLike;
  addNotificationResponseReceivedListener(listener: (response: ExpoNotificationResponseLike) => void): EventSubscriptionLike;
  getLastNotificationResponseAsync(): Promise<ExpoNotificationResponseLike | null>;
  readonly DEFAULT_ACTION_IDENTIFIER?: string;
}

/** The `actionIdentifier` of a tap on the notification itself. */
export const EXPO_DEFAULT_ACTION = 'expo.modules.notifications.actions.DEFAULT';

/** iOS `IosAuthorizationStatus`: NOT_DETERMINED 0, DENIED 1, AUTHORIZED 2, PROVISIONAL 3, EPHEMERAL 4. */
export function expoPermission(response: ExpoPermissionsLike): Permission {
  const ios = response.ios?.status;
  if (response.granted || (ios !== undefined && ios >= 2)) return 'granted';
  return response.status === 'denied' ? 'denied' : 'unknown';
}

/** The service's fields sit in the APNs payload (iOS, `trigger.payload`) or the FCM data (Android, `trigger.remoteMessage.data`). */
export function expoMessage(notification: ExpoNotificationLike): PushMessage {
  const { content, trigger } = notification.request;
  const fields = trigger?.payload ?? trigger?.remoteMessage?.data ?? content.data;
  return readPush(fields, content.title, content.body);
}

/** expo-notifications, with `getDevicePushTokenAsync` for the native token the service sends to. */
export function expoAdapter(notifications: ExpoNotificationsLike): PushAdapter {
  const action = (response: ExpoNotificationResponseLike) =>
    response.actionIdentifier === (notifications.DEFAULT_ACTION_IDENTIFIER ?? EXPO_DEFAULT_ACTION) ? null : response.actionIdentifier;
  return {
    library: 'expo',
    permission: async () => expoPermission(await notifications.getPermissionsAsync()),
    requestPermission: async () => expoPermission(await notifications.requestPermissionsAsync()),
    token: async () => {
      const { type, data } = await notifications.getDevicePushTokenAsync();
      if (type !== 'ios' && type !== 'android')
        throw new Error(`expo-notifications gave a ${type} token: the React Native SDK registers iOS and Android devices`);
      return typeof data === 'string' && data !== '' ? { platform: type, token: data } : null;
    },
    onTokenChange: (listener) => {
      const subscription = notifications.addPushTokenListener(() => listener());
      return () => subscription.remove();
    },
    onReceived: (listener) => {
      const subscription = notifications.addNotificationReceivedListener((notification) => listener(expoMessage(notification)));
      return () => subscription.remove();
    },
    onOpened: (listener) => {
      const subscription = notifications.addNotificationResponseReceivedListener((response) => listener(expoMessage(response.notification), action(response)));
      return () => subscription.remove();
    },
    initialOpened: async () => {
      const response = await notifications.getLastNotificationResponseAsync();
      return response ? { message: expoMessage(response.notification), action: action(response) } : null;
    },
  };
}
