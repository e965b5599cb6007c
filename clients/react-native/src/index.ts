export { PushClient, type AppStateLike, type PushClientOptions } from './client';
export { PushApiError, type Fetch } from './api';
export { backgroundMessageHandler, type BackgroundOptions } from './background';
export type { DeviceToken, Permission, Platform, PushMessage } from './adapters/types';
export type { FirebaseMessagingLike, RemoteMessageLike } from './adapters/firebase';
export type { ExpoNotificationsLike, ExpoNotificationLike, ExpoNotificationResponseLike, DevicePushTokenLike, ExpoPermissionsLike } from './adapters/expo';
export type { InboxApi, InboxEvent, InboxMessage, InboxPage, XhrConstructor, XhrLike } from './inbox';
export type { Preferences, PreferencesApi, PreferencesChange } from './preferences';
export type { StorageLike } from './installation';
