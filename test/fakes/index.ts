export * from './fake-server';
export * from './fake-apns';
export * from './fake-fcm';
export * from './fake-web-push';
