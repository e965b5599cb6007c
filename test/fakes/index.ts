export * from '../../src/sandbox/fake-server';
export * from '../../src/sandbox/fake-apns';
export * from '../../src/sandbox/fake-fcm';
export * from '../../src/sandbox/fake-web-push';
export * from '../../src/sandbox/fake-hms';
export * from '../../src/sandbox/apns-live-activity';
