// Runs in every test file before anything is imported: a quiet, deterministic environment.
process.env.NODE_ENV = 'test';
process.env.APP_KEY ??= 'dGVzdC1rZXktdGVzdC1rZXktdGVzdC1rZXktdGVzdC0=';
process.env.LOG_LEVEL ??= 'silent';
// Every test app would otherwise bind the same metrics port; metrics tests pick a free one.
process.env.METRICS_PORT ??= '0';
// The loopback fakes' Web Push endpoints are https://localhost:<port>: trusted only because listed.
process.env.WEB_PUSH_ALLOWED_HOSTS ??= 'localhost';
