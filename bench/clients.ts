/**
 * The two clients the delivery rate is compared with, each run in a child process by
 * bench/delivery.ts (parameters in BENCH_CLIENT, one JSON result line on stdout).
 */
import { createPrivateKey, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, constants as h2, type ClientHttp2Session } from 'node:http2';
import { SignJWT } from 'jose';
import { apnsHeaders, apnsPayload, type PushContent } from '../src/delivery/providers/payloads';
import { TEST_CA_PATH } from '../test/fakes';

export const TITLE = 'Benchmark';
export const BODY = 'One notification to every installation';
export const APNS_TOPIC = 'com.example.pushbench';

export interface ClientParams {
  kind: 'ceiling' | 'peer';
  baseUrl: string;
  key: { keyId: string; teamId: string; privateKeyPem: string };
  /** JSON array of APNs device tokens. */
  tokensFile: string;
  /** Requests to send (tokens are cycled); the peer sends each token once. */
  count: number;
  sessions: number;
  streams: number;
  chunkSize: number;
}

export interface RateResult {
  requests: number;
  accepted: number;
  seconds: number;
  perSecond: number;
  /** CPU seconds of the client process while sending. */
  cpuSeconds: number;
  /** CPU seconds of the fake providers' process over the client's whole run (set by the harness). */
  fakesCpuSeconds?: number;
}

/** The content our service sends, so the ceiling and the peer send the same bytes. */
function benchContent(): PushContent {
  return { id: randomUUID(), title: TITLE, body: BODY, image_url: null, action_url: null, data: null, options: null };
}

async function timed(count: number, run: () => Promise<number>): Promise<RateResult> {
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const accepted = await run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  return { requests: count, accepted, seconds, perSecond: count / seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

/**
 * The ceiling: a bare node:http2 loop, `sessions` connections with `streams` requests in flight on
 * each, sending our headers and payload. No database, no queue, no accounting.
 */
async function ceiling(p: ClientParams, tokens: string[]): Promise<RateResult> {
  const content = benchContent();
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: p.key.keyId })
    .setIssuer(p.key.teamId)
    .setIssuedAt()
    .sign(createPrivateKey(p.key.privateKeyPem));
  const headers = { ...apnsHeaders(content), 'apns-topic': APNS_TOPIC, authorization: `bearer ${jwt}` };
  const body = JSON.stringify(apnsPayload(content));
  const ca = readFileSync(TEST_CA_PATH);
  const sessions: ClientHttp2Session[] = [];
  for (let i = 0; i < p.sessions; i++) {
    const session = connect(p.baseUrl, { ca, maxSessionMemory: 64 });
    await new Promise<void>((resolve, reject) => {
      session.once('remoteSettings', () => resolve());
      session.once('error', reject);
    });
    sessions.push(session);
  }
  const send = (session: ClientHttp2Session, token: string) =>
    new Promise<number>((resolve) => {
      const stream = session.request({ ...headers, [h2.HTTP2_HEADER_METHOD]: 'POST', [h2.HTTP2_HEADER_PATH]: `/3/device/${token}` });
      let status = 0;
      stream.on('response', (h) => (status = Number(h[h2.HTTP2_HEADER_STATUS])));
      stream.on('data', () => undefined);
      stream.on('close', () => resolve(status));
      stream.on('error', () => undefined);
      stream.end(body);
    });
  const result = await timed(p.count, async () => {
    let next = 0;
    let accepted = 0;
    const lane = async (session: ClientHttp2Session) => {
      while (next < p.count) {
        const i = next++;
        if ((await send(session, tokens[i % tokens.length])) === 200) accepted++;
      }
    };
    await Promise.all(sessions.flatMap((session) => Array.from({ length: p.streams }, () => lane(session))));
    return accepted;
  });
  for (const session of sessions) session.close();
  return result;
}

/**
 * The peer: @parse/node-apn (the APNs client under Parse Server's push adapter), pointed at the
 * fake with its address/port/ca options, sending the tokens in chunks, one chunk after another.
 */
async function peer(p: ClientParams, tokens: string[]): Promise<RateResult> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const apn = require('@parse/node-apn');
  const url = new URL(p.baseUrl);
  const provider = new apn.Provider({
    token: { key: p.key.privateKeyPem, keyId: p.key.keyId, teamId: p.key.teamId },
    production: false,
    address: url.hostname,
    port: Number(url.port),
    ca: readFileSync(TEST_CA_PATH),
  });
  const content = benchContent();
  const note = new apn.Notification();
  note.alert = { title: TITLE, body: BODY };
  note.topic = APNS_TOPIC;
  note.pushType = 'alert';
  note.priority = 10;
  note.collapseId = content.id;
  note.payload = { notification_id: content.id };
  try {
    return await timed(tokens.length, async () => {
      let accepted = 0;
      for (let i = 0; i < tokens.length; i += p.chunkSize) {
        const result = await provider.send(note, tokens.slice(i, i + p.chunkSize));
        accepted += result.sent.length;
        if (accepted === 0 && result.failed.length > 0) throw new Error(`node-apn failed: ${JSON.stringify(result.failed[0]).slice(0, 500)}`);
      }
      return accepted;
    });
  } finally {
    provider.shutdown();
  }
}

if (require.main === module) {
  const params = JSON.parse(process.env.BENCH_CLIENT ?? '{}') as ClientParams;
  const tokens = JSON.parse(readFileSync(params.tokensFile, 'utf8')) as string[];
  (params.kind === 'peer' ? peer(params, tokens) : ceiling(params, tokens)).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: Error) => {
      process.stderr.write(`${error.stack ?? error.message}\n`);
      process.exit(1);
    },
  );
}
