import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { PLATFORMS } from '../common/platform';
import { Behaviours } from './behaviours';
import { FakeApns } from './fake-apns';
import { FakeFcm } from './fake-fcm';
import { FakeHms } from './fake-hms';
import { isPlainObject, readBody, tryParseJson } from './fake-server';
import { isAllowedHost, isJsonRequest } from './request-checks';
import { FakeWebPush } from './fake-web-push';
import { Inbox } from './inbox';
import { loadMaterials, SANDBOX_FILES, writeServiceAccount } from './materials';

/** The sandbox's own API port when none is given; APNs, FCM, Web Push and Huawei listen on the next four. */
export const SANDBOX_DEFAULT_PORT = 4400;
/** The bundle id APNs accepts when none is named (`--apns-topic`). */
export const SANDBOX_DEFAULT_TOPIC = 'dev.pns.sandbox';
const LOOPBACK = '127.0.0.1';
/** Bodies of the sandbox's own API are small JSON objects. */
const MAX_CONTROL_BODY_BYTES = 16 * 1024;

export interface SandboxOptions {
  /** Where the CA, certificate and credentials are kept (made on first start). */
  dir: string;
  /** The sandbox API's port; APNs, FCM, Web Push and Huawei take the next four. 0: five free ports. */
  port?: number;
  /** The address every server binds: loopback unless told otherwise. */
  host?: string;
  /** The host name in the URLs it prints (and in its certificate), when not the bound address. */
  urlHost?: string;
  /** Bundle ids APNs accepts. */
  apnsTopics?: string[];
  /** How many accepted pushes the inbox keeps. */
  inboxLimit?: number;
  /** Host names its API answers besides loopback and urlHost (default: PNS_SANDBOX_ALLOWED_HOSTS, comma-separated). */
  allowedHosts?: string[];
  /** The clock outages end by (ms since the epoch): a test moves it rather than waiting. */
  now?: () => number;
}

/** The JSON `pns sandbox` prints and `GET /` answers (docs/testing.md#start-the-sandbox). */
export interface SandboxInfo {
  dir: string;
  /** The sandbox's own API: inbox, behaviours, Web Push subscriptions. */
  url: string;
  /** What to put in the service's environment to deliver to the sandbox. */
  env: {
    APNS_URL: string;
    APNS_CHANNELS_URL: string;
    FCM_URL: string;
    GOOGLE_TOKEN_URL: string;
    HMS_URL: string;
    HMS_TOKEN_URL: string;
    WEB_PUSH_ALLOWED_HOSTS: string;
    NODE_EXTRA_CA_CERTS: string;
  };
  /** The credentials it accepts, for `pns apps:credentials`. */
  apns: { key_file: string; key_id: string; team_id: string; topics: string[] };
  fcm: { service_account_file: string; project_id: string };
  web_push: { subscriptions_url: string };
  /** Endpoints as a UnifiedPush distributor gives an Android app (docs/testing.md#unifiedpush-endpoints). */
  unifiedpush: { subscriptions_url: string };
  hms: { app_id: string; client_id: string; client_secret: string };
}

/** Loopback APNs, FCM, Web Push and Huawei Push Kit (the tests' fakes) with an inbox and behaviours (docs/testing.md); it never connects anywhere. */
export class Sandbox {
  readonly apns = new FakeApns();
  readonly fcm = new FakeFcm();
  readonly web = new FakeWebPush();
  readonly hms = new FakeHms();
  readonly inbox: Inbox;
  readonly behaviours: Behaviours;
  private server?: Server;
  private allowedHosts: string[] = [];
  private readonly sockets = new Set<Socket>();
  private infoValue?: SandboxInfo;

  private constructor(private readonly options: SandboxOptions) {
    this.inbox = new Inbox(options.inboxLimit);
    this.behaviours = new Behaviours(options.now);
  }

  static async start(options: SandboxOptions): Promise<Sandbox> {
    const sandbox = new Sandbox(options);
    try {
      await sandbox.listen();
    } catch (error) {
      await sandbox.stop();
      throw error;
    }
    return sandbox;
  }

  get info(): SandboxInfo {
    if (!this.infoValue) throw new Error('the sandbox is not started');
    return this.infoValue;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of this.sockets) socket.destroy();
      await closed;
    }
    await Promise.all([this.apns.stop(), this.fcm.stop(), this.web.stop(), this.hms.stop()]);
  }

  private async listen(): Promise<void> {
    const host = this.options.host ?? LOOPBACK;
    const port = this.options.port ?? SANDBOX_DEFAULT_PORT;
    const urlHost = this.options.urlHost ?? (isAnyAddress(host) ? 'localhost' : host);
    const materials = await loadMaterials(this.options.dir, [urlHost]);
    const limit = this.inbox.limit;
    for (const fake of [this.apns, this.fcm, this.web, this.hms]) fake.tls = materials.tls;
    this.apns.logTo((record) => this.inbox.apns(record), limit);
    this.fcm.logTo((record) => this.inbox.fcm(record), limit);
    this.web.logTo((record) => this.inbox.webPush(record), limit);
    this.hms.logTo((record) => this.inbox.hms(record), limit);
    this.apns.standingAnswer = (token) => this.behaviours.apns(token);
    this.fcm.standingAnswer = (token) => this.behaviours.fcm(token);
    this.web.standingAnswer = (id) => this.behaviours.webPush(id);
    this.hms.standingAnswer = (token) => this.behaviours.hms(token);
    this.hms.addClient(materials.hms);

    const topics = this.options.apnsTopics?.length ? this.options.apnsTopics : [SANDBOX_DEFAULT_TOPIC];
    this.apns.addKey(materials.apnsKey);
    for (const topic of topics) this.apns.allowTopic(topic);

    // The service refuses IP literals as Web Push endpoints: they name a host, as a push service's do.
    const webHost = this.options.urlHost ?? 'localhost';
    const next = (offset: number) => (port === 0 ? 0 : port + offset);
    const configured = this.options.allowedHosts ?? (process.env.PNS_SANDBOX_ALLOWED_HOSTS ?? '').split(',');
    this.allowedHosts = [urlHost, ...configured].map((name) => name.trim()).filter((name) => name !== '');
    const url = await this.listenControl(host, port, urlHost);
    await this.apns.start({ port: next(1), host, urlHost });
    await this.fcm.start({ port: next(2), host, urlHost });
    await this.web.start({ port: next(3), host, urlHost: webHost });
    await this.hms.start({ port: next(4), host, urlHost });

    const account = { ...materials.serviceAccount, token_uri: this.fcm.tokenUrl };
    writeServiceAccount(materials.dir, account);
    this.fcm.addServiceAccount(account);

    this.infoValue = {
      dir: materials.dir,
      url,
      env: {
        APNS_URL: this.apns.baseUrl,
        APNS_CHANNELS_URL: this.apns.baseUrl,
        FCM_URL: this.fcm.baseUrl,
        GOOGLE_TOKEN_URL: this.fcm.tokenUrl,
        HMS_URL: this.hms.baseUrl,
        HMS_TOKEN_URL: this.hms.tokenUrl,
        WEB_PUSH_ALLOWED_HOSTS: webHost,
        NODE_EXTRA_CA_CERTS: join(materials.dir, SANDBOX_FILES.ca),
      },
      apns: { key_file: join(materials.dir, SANDBOX_FILES.apnsKey), key_id: materials.apnsKey.keyId, team_id: materials.apnsKey.teamId, topics },
      fcm: { service_account_file: join(materials.dir, SANDBOX_FILES.fcmServiceAccount), project_id: materials.serviceAccount.project_id },
      web_push: { subscriptions_url: `${url}/web-push/subscriptions` },
      unifiedpush: { subscriptions_url: `${url}/unifiedpush/subscriptions` },
      hms: materials.hms,
    };
  }

  private async listenControl(host: string, port: number, urlHost: string): Promise<string> {
    const server = createServer((req, res) => {
      this.route(req, res).catch((error: unknown) => send(res, 500, { message: String(error) }));
    });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return `http://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${(server.address() as AddressInfo).port}`;
  }

  /** The sandbox's API (docs/testing.md#the-sandbox-api). */
  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isAllowedHost(req.headers.host, this.allowedHosts)) {
      return send(res, 403, { message: `host ${JSON.stringify(req.headers.host ?? '')} is not allowed: loopback or PNS_SANDBOX_ALLOWED_HOSTS` });
    }
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const { body, size } = await readBody(req, MAX_CONTROL_BODY_BYTES);
    if (size > MAX_CONTROL_BODY_BYTES) return send(res, 413, { message: `bodies are at most ${MAX_CONTROL_BODY_BYTES} bytes` });
    // A cross-site form can POST text/plain without a preflight; JSON needs one, which the sandbox never grants.
    if (req.method !== 'GET' && req.method !== 'HEAD' && !isJsonRequest(req.method, req.headers['content-type'], size)) {
      return send(res, 415, { message: 'the body must be JSON (Content-Type: application/json)' });
    }
    const json = size === 0 ? {} : tryParseJson(body.toString('utf8'));
    const path = url.pathname;

    if (path === '/' && req.method === 'GET') return send(res, 200, this.info);
    if (path === '/inbox' && req.method === 'GET') return this.listInbox(url.searchParams, res);
    if (path === '/inbox' && req.method === 'DELETE') {
      this.inbox.clear();
      return send(res, 204);
    }
    if ((path === '/web-push/subscriptions' || path === '/unifiedpush/subscriptions') && req.method === 'POST') {
      if (!isPlainObject(json)) return send(res, 400, { message: 'the body must be a JSON object' });
      const key = json.application_server_key;
      if (key !== undefined && typeof key !== 'string') return send(res, 400, { message: 'application_server_key must be a string (base64url)' });
      // A UnifiedPush distributor's endpoint for an Android app: the same protocol, decrypted into the inbox as `android`.
      const subscription = this.web.createSubscription({ applicationServerKey: key, unifiedPush: path === '/unifiedpush/subscriptions' });
      return send(res, 201, { id: subscription.endpoint.slice(subscription.endpoint.lastIndexOf('/') + 1), subscription });
    }
    if (path === '/behaviours' && req.method === 'GET') return send(res, 200, { data: this.behaviours.list() });
    if (path === '/behaviours' && req.method === 'DELETE') {
      this.behaviours.clear();
      return send(res, 204);
    }
    const behaviour = /^\/behaviours\/([^/]+)$/.exec(path);
    if (behaviour && req.method === 'PUT') {
      if (!isPlainObject(json)) return send(res, 400, { message: 'the body must be a JSON object' });
      const token = decodedSegment(behaviour[1]);
      if (token === undefined) return send(res, 400, { message: 'the token in the path is not valid percent-encoding' });
      try {
        return send(res, 200, { token, ...this.behaviours.set(token, json) });
      } catch (error) {
        return send(res, 400, { message: (error as Error).message });
      }
    }
    send(res, 404, { message: `no route ${req.method} ${path}` });
  }

  private listInbox(params: URLSearchParams, res: ServerResponse): void {
    const platform = params.get('platform') ?? undefined;
    if (platform !== undefined && !(PLATFORMS as readonly string[]).includes(platform)) {
      return send(res, 400, { message: `platform must be one of ${PLATFORMS.join(', ')}` });
    }
    const sinceText = params.get('since') ?? undefined;
    const since = sinceText === undefined ? undefined : new Date(sinceText);
    if (since !== undefined && Number.isNaN(since.getTime())) return send(res, 400, { message: 'since must be an ISO 8601 date-time' });
    const data = this.inbox.list({
      platform,
      token: params.get('token') ?? undefined,
      notification_id: params.get('notification_id') ?? undefined,
      since,
    });
    send(res, 200, { data });
  }
}

/** A path segment decoded, or undefined when it is not valid percent-encoding (a lone `%`, `%zz`, broken UTF-8). */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function isAnyAddress(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (res.headersSent) return;
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}
