// @peculiar/x509 resolves its parsers through tsyringe, which needs the reflect polyfill loaded first.
import 'reflect-metadata';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import * as x509 from '@peculiar/x509';
import { generateApnsKey, type ApnsKey } from './fake-apns';
import type { ServiceAccount } from './fake-fcm';
import { newHmsClient, type HmsClient } from './fake-hms';

/** The files a sandbox directory holds, made on first start and kept (docs/testing.md#the-sandbox-directory). */
export const SANDBOX_FILES = {
  ca: 'ca.pem',
  caKey: 'ca-key.pem',
  server: 'server.pem',
  serverKey: 'server-key.pem',
  apnsKey: 'apns-auth-key.p8',
  apns: 'apns.json',
  fcmServiceAccount: 'fcm-service-account.json',
  hms: 'hms.json',
} as const;

export const SANDBOX_FCM_PROJECT = 'pns-sandbox';

export interface SandboxMaterials {
  dir: string;
  tls: { key: string; cert: string };
  apnsKey: ApnsKey;
  /** Without token_uri, which names the running sandbox. */
  serviceAccount: Omit<ServiceAccount, 'token_uri'>;
  hms: HmsClient;
}

/** So a client on the same machine needs no option. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** Reads `dir`, creating what is missing; the server certificate is reissued by the same CA when it misses a host. */
export async function loadMaterials(dir: string, hosts: readonly string[] = []): Promise<SandboxMaterials> {
  const root = resolve(dir);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const file = (name: string) => join(root, name);

  if (!existsSync(file(SANDBOX_FILES.ca)) || !existsSync(file(SANDBOX_FILES.caKey))) {
    const ca = await createCa();
    writeSecret(file(SANDBOX_FILES.caKey), ca.keyPem);
    writeFileSync(file(SANDBOX_FILES.ca), ca.certPem);
  }
  const names = [...new Set([...LOOPBACK_NAMES, ...hosts.filter((host) => !isAnyAddress(host))])];
  const serverPath = file(SANDBOX_FILES.server);
  if (!existsSync(serverPath) || !existsSync(file(SANDBOX_FILES.serverKey)) || !covers(readFileSync(serverPath, 'utf8'), names)) {
    const server = await issueServerCertificate(readFileSync(file(SANDBOX_FILES.ca), 'utf8'), readFileSync(file(SANDBOX_FILES.caKey), 'utf8'), names);
    writeSecret(file(SANDBOX_FILES.serverKey), server.keyPem);
    writeFileSync(serverPath, server.certPem);
  }

  if (!existsSync(file(SANDBOX_FILES.apns)) || !existsSync(file(SANDBOX_FILES.apnsKey))) {
    const key = generateApnsKey();
    writeSecret(file(SANDBOX_FILES.apnsKey), key.privateKeyPem);
    writeFileSync(file(SANDBOX_FILES.apns), `${JSON.stringify({ key_id: key.keyId, team_id: key.teamId }, null, 2)}\n`);
  }
  const apns = JSON.parse(readFileSync(file(SANDBOX_FILES.apns), 'utf8')) as { key_id: string; team_id: string };
  const apnsPem = readFileSync(file(SANDBOX_FILES.apnsKey), 'utf8');

  if (!existsSync(file(SANDBOX_FILES.fcmServiceAccount))) {
    writeSecret(file(SANDBOX_FILES.fcmServiceAccount), `${JSON.stringify(newServiceAccount(), null, 2)}\n`);
  }
  const serviceAccount = JSON.parse(readFileSync(file(SANDBOX_FILES.fcmServiceAccount), 'utf8')) as ServiceAccount;

  if (!existsSync(file(SANDBOX_FILES.hms))) writeSecret(file(SANDBOX_FILES.hms), `${JSON.stringify(newHmsClient(), null, 2)}\n`);
  const hms = JSON.parse(readFileSync(file(SANDBOX_FILES.hms), 'utf8')) as HmsClient;

  return {
    dir: root,
    tls: { key: readFileSync(file(SANDBOX_FILES.serverKey), 'utf8'), cert: readFileSync(serverPath, 'utf8') },
    apnsKey: { keyId: apns.key_id, teamId: apns.team_id, privateKeyPem: apnsPem, publicKey: createPublicKey(createPrivateKey(apnsPem)) },
    serviceAccount,
    hms,
  };
}

export function writeServiceAccount(dir: string, account: ServiceAccount): void {
  const path = join(dir, SANDBOX_FILES.fcmServiceAccount);
  const text = `${JSON.stringify(account, null, 2)}\n`;
  if (readFileSync(path, 'utf8') !== text) writeSecret(path, text);
}

function isAnyAddress(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

function newServiceAccount(): Omit<ServiceAccount, 'token_uri'> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const email = `sandbox@${SANDBOX_FCM_PROJECT}.iam.gserviceaccount.com`;
  return {
    type: 'service_account',
    project_id: SANDBOX_FCM_PROJECT,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    client_email: email,
    client_id: `1${Array.from(randomBytes(20), (byte) => byte % 10).join('')}`,
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
    universe_domain: 'googleapis.com',
  };
}

function writeSecret(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

function pem(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
}

async function newKeys(): Promise<webcrypto.CryptoKeyPair> {
  return await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
}

/** Valid 100 years: a sandbox outlives no project. */
async function createCa(): Promise<{ certPem: string; keyPem: string }> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'O=push-notification-service sandbox, CN=pns sandbox CA (this machine only)',
    notBefore: new Date(Date.now() - 3600_000),
    notAfter: new Date(Date.now() + 100 * YEAR_MS),
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

async function issueServerCertificate(caPem: string, caKeyPem: string, names: string[]): Promise<{ certPem: string; keyPem: string }> {
  const ca = new x509.X509Certificate(caPem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', createPrivateKey(caKeyPem).export({ format: 'der', type: 'pkcs8' }), EC, false, ['sign']);
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    subject: 'CN=localhost',
    issuer: ca.subject,
    notBefore: new Date(Date.now() - 3600_000),
    notAfter: new Date(Date.now() + 10 * YEAR_MS),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: isIP(value) ? 'ip' : 'dns', value }))),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

function covers(certPem: string, names: string[]): boolean {
  const san = new x509.X509Certificate(certPem).getExtension(x509.SubjectAlternativeNameExtension);
  const named = new Set(san?.names.toJSON().map((name) => name.value) ?? []);
  return names.every((name) => named.has(name));
}
