import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMaterials, SANDBOX_FILES } from './materials';

describe('sandbox materials (docs/testing.md#the-sandbox-directory)', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'pns-materials-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');

  it('makes a CA, a loopback certificate it signed and the provider credentials on first start, private keys 0600', async () => {
    const materials = await loadMaterials(dir);
    const ca = new X509Certificate(read(SANDBOX_FILES.ca));
    const server = new X509Certificate(read(SANDBOX_FILES.server));
    expect(ca.ca).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkIP('::1')).toBe('::1');
    for (const secret of [SANDBOX_FILES.caKey, SANDBOX_FILES.serverKey, SANDBOX_FILES.apnsKey, SANDBOX_FILES.fcmServiceAccount]) {
      expect(statSync(join(dir, secret)).mode & 0o777).toBe(0o600);
    }
    expect(materials.apnsKey.keyId).toMatch(/^[A-Z0-9]{10}$/);
    expect(materials.serviceAccount).toMatchObject({ type: 'service_account', project_id: 'pns-sandbox' });
  });

  it('keeps everything on the next start, and issues the certificate again (same CA) for a new host name', async () => {
    const before = {
      ca: read(SANDBOX_FILES.ca),
      server: read(SANDBOX_FILES.server),
      apns: read(SANDBOX_FILES.apns),
      fcm: read(SANDBOX_FILES.fcmServiceAccount),
    };
    await loadMaterials(dir, ['localhost']);
    expect(read(SANDBOX_FILES.server)).toBe(before.server);
    await loadMaterials(dir, ['sandbox', '0.0.0.0']);
    const server = new X509Certificate(read(SANDBOX_FILES.server));
    expect(server.checkHost('sandbox')).toBe('sandbox');
    expect(server.verify(new X509Certificate(before.ca).publicKey)).toBe(true);
    expect([read(SANDBOX_FILES.ca), read(SANDBOX_FILES.apns), read(SANDBOX_FILES.fcmServiceAccount)]).toEqual([before.ca, before.apns, before.fcm]);
  });
});
