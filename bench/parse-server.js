/**
 * Parse Server, the peer service of the bench (bench/parse.ts starts it, one process per push):
 * parse-server on its PostgreSQL adapter with its bundled @parse/push-adapter, whose APNs provider
 * (@parse/node-apn) is pointed at the bench's fake APNs. Parameters in BENCH_PARSE (JSON); prints
 * one line, "ready <port>", once it serves.
 *
 * Plain JavaScript on purpose: this process's CPU and peak RSS are what is measured, and running
 * it through ts-node would add the TypeScript compiler to both.
 */
'use strict';
const { readFileSync } = require('node:fs');
const { ParseServer } = require('parse-server');

const p = JSON.parse(process.env.BENCH_PARSE || '{}');

async function main() {
  const ios = {
    token: { key: p.apns.privateKeyPem, keyId: p.apns.keyId, teamId: p.apns.teamId },
    topic: p.apns.topic,
    production: false,
    // node-apn receives this whole object: it connects to address:port and trusts ca.
    address: p.apns.address,
    port: p.apns.port,
    ca: readFileSync(p.apns.caFile),
    // The configuration (bench/parse.ts PARSE_CONFIGS): node-apn's session buffer (node:http2
    // maxSessionMemory, 10 MB by default) and its per-request timeout (5 s by default, counted
    // while the request is still queued in the session), when raised, so that the sends queued
    // behind a full session are not given up.
    ...(p.config.maxSessionMemory ? { maxSessionMemory: p.config.maxSessionMemory } : {}),
    ...(p.config.requestTimeoutMs ? { requestTimeout: p.config.requestTimeoutMs } : {}),
  };
  await ParseServer.startApp({
    appId: p.appId,
    masterKey: p.masterKey,
    databaseURI: p.databaseUri,
    port: p.port,
    host: '127.0.0.1',
    mountPath: '/parse',
    serverURL: `http://127.0.0.1:${p.port}/parse`,
    // No log files in the working directory; errors still go to stderr.
    logsFolder: null,
    logLevel: 'error',
    verbose: false,
    // queueOptions.batchSize: installations per push work item (Parse's default 100).
    push: { ios, ...(p.config.batchSize ? { queueOptions: { batchSize: p.config.batchSize } } : {}) },
  });
  process.stdout.write(`ready ${p.port}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
