import { createServer, Server } from 'node:net';
import { chooseFirstRunBackends, storedLines } from './setup.commands';

/** A port something listens on, and one nothing does, on loopback. */
async function listening(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as { port: number }).port };
}

describe('setup: the first run picks what needs nothing installed (docs/operations.md "Embedded PostgreSQL")', () => {
  let open: { server: Server; port: number };
  let closed: number;
  beforeAll(async () => {
    open = await listening();
    const gone = await listening();
    closed = gone.port;
    await new Promise((done) => gone.server.close(done));
  });
  afterAll(() => new Promise((done) => open.server.close(done)));

  const run = async (environment: NodeJS.ProcessEnv) => {
    const said: string[] = [];
    await chooseFirstRunBackends(environment, (line) => said.push(line));
    return { environment, said };
  };

  it('records both where nothing answers, one line each', async () => {
    const { environment, said } = await run({ PNS_SETUP_POSTGRES_ADDRESS: `127.0.0.1:${closed}`, PNS_SETUP_REDIS_ADDRESS: `127.0.0.1:${closed}` });
    expect(environment).toMatchObject({ DATABASE_URL: 'embedded', QUEUE_BACKEND: 'postgres' });
    expect(said).toHaveLength(2);
  });

  it('changes nothing where both answer, as before', async () => {
    const address = `127.0.0.1:${open.port}`;
    const { environment, said } = await run({ PNS_SETUP_POSTGRES_ADDRESS: address, PNS_SETUP_REDIS_ADDRESS: address });
    expect(environment.DATABASE_URL).toBeUndefined();
    expect(environment.QUEUE_BACKEND).toBeUndefined();
    expect(said).toEqual([]);
  });

  it('asks nothing about what the environment or .env already names', async () => {
    const address = `127.0.0.1:${closed}`;
    const given = {
      DATABASE_URL: 'postgres://db.internal/push',
      REDIS_URL: 'redis://cache:6379',
      PNS_SETUP_POSTGRES_ADDRESS: address,
      PNS_SETUP_REDIS_ADDRESS: address,
    };
    const { environment, said } = await run({ ...given });
    expect(environment).toEqual(given);
    expect(said).toEqual([]);
  });
});

describe('setup --sandbox says what it stored (issue: hardening, item 11)', () => {
  it('names each provider and prints the VAPID public key', () => {
    const text = storedLines('My App', {
      app_id: 'a',
      apns: { key_id: 'K1', team_id: 'T1', topic: 'com.example.app', production: false },
      fcm: { project_id: 'sandbox-project', client_email: 'fcm@sandbox.test' },
      web_push: { subject: 'mailto:qa@example.com', public_key: 'BPublicKey' },
      hms: { app_id: '107001', client_id: '107001' },
    });
    expect(text.split('\n')).toEqual([
      'Stored the sandbox\'s credentials for "My App":',
      '  APNs: key K1, team T1, topic com.example.app, development',
      '  FCM: fcm@sandbox.test (project sandbox-project)',
      '  Web Push: subject mailto:qa@example.com',
      '  Huawei: client 107001 (app 107001)',
      "VAPID public key (the web SDK's vapidPublicKey): BPublicKey",
      '',
    ]);
  });
});
