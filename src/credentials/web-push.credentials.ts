import { createECDH, createPublicKey } from 'node:crypto';
import webpush from 'web-push';
import { AppCredentials } from './app-credentials.entity';
import { ColumnValues, CredentialsError, OpenFrom, SealFor } from './sealed-columns';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** What delivery signs its VAPID tokens with. */
export interface VapidCredentials {
  subject: string;
  publicKey: string;
  privateKey: string;
}

export interface VapidCredentialsInput {
  /** `mailto:` or `https:` contact for push services (RFC 8292 `sub`). */
  subject: string;
  /** Both or neither; when neither, the app keeps its existing pair or a new one is generated. */
  publicKey?: string;
  privateKey?: string;
}

export interface WebPushSummary {
  subject: string;
  public_key: string;
}

/** Every Web Push column, cleared together so no half-set provider is left. */
export const WEB_PUSH_COLUMNS = ['vapid_subject', 'vapid_public_key', 'vapid_private_key_enc'] as const;

/** Validates the input (or generates a pair); the columns it writes, the private key sealed. */
export function webPushColumns(input: VapidCredentialsInput, seal: SealFor): ColumnValues {
  const vapid = validateVapid(input);
  return {
    values: [
      ['vapid_subject', vapid.subject],
      ['vapid_public_key', vapid.publicKey],
      ['vapid_private_key_enc', seal('vapid_private_key_enc', vapid.privateKey)],
    ],
    // Browsers bind every subscription to the VAPID public key it was made with: replacing an
    // existing pair merely because none was passed would silently break all of them.
    keepExisting: vapid.generated ? ['vapid_public_key', 'vapid_private_key_enc'] : [],
  };
}

export function webPushSummary(row: AppCredentials | null): WebPushSummary | null {
  return row?.vapidSubject && row.vapidPublicKey && row.vapidPrivateKeyEnc ? { subject: row.vapidSubject, public_key: row.vapidPublicKey } : null;
}

export function openWebPush(row: AppCredentials, open: OpenFrom): VapidCredentials | null {
  if (!(row.vapidSubject && row.vapidPublicKey && row.vapidPrivateKeyEnc)) return null;
  return {
    subject: row.vapidSubject,
    publicKey: row.vapidPublicKey,
    privateKey: open(row.vapidPrivateKeyEnc, 'vapid_private_key_enc'),
  };
}

function validateVapid(input: VapidCredentialsInput): { subject: string; publicKey: string; privateKey: string; generated: boolean } {
  const subject = input.subject.trim();
  if (!/^mailto:[^@\s]+@[^@\s]+$/.test(subject) && !/^https:\/\/[^\s/]+/.test(subject)) {
    throw new CredentialsError('VAPID subject must be a mailto: address or an https: URL');
  }
  if (subject.length > 255) throw new CredentialsError('VAPID subject must be at most 255 characters');
  if ((input.publicKey === undefined) !== (input.privateKey === undefined)) {
    throw new CredentialsError('VAPID public and private keys go together: give both or neither');
  }
  if (input.publicKey === undefined || input.privateKey === undefined) {
    return { subject, ...webpush.generateVAPIDKeys(), generated: true };
  }
  const publicKey = input.publicKey.trim();
  const privateKey = input.privateKey.trim();
  assertVapidPair(publicKey, privateKey);
  return { subject, publicKey, privateKey, generated: false };
}

/** Throws CredentialsError when stored VAPID credentials would not be accepted today (`credentials:check`). */
export function checkVapid(vapid: VapidCredentials): void {
  validateVapid({ subject: vapid.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey });
}

/** A P-256 pair in base64url, as web-push produces: a 65-byte uncompressed point and a 32-byte scalar. */
function assertVapidPair(publicKey: string, privateKey: string): void {
  const point = Buffer.from(publicKey, 'base64url');
  if (!BASE64URL.test(publicKey) || point.length !== 65 || point[0] !== 0x04) {
    throw new CredentialsError('VAPID public key must be an uncompressed P-256 point in base64url (65 bytes)');
  }
  const scalar = Buffer.from(privateKey, 'base64url');
  if (!BASE64URL.test(privateKey) || scalar.length !== 32) {
    throw new CredentialsError('VAPID private key must be a P-256 private key in base64url (32 bytes)');
  }
  try {
    createPublicKey({
      format: 'jwk',
      key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    });
  } catch {
    throw new CredentialsError('VAPID public key is not a point on P-256');
  }
  let derived: Buffer;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(scalar);
    derived = ecdh.getPublicKey();
  } catch {
    throw new CredentialsError('VAPID private key is not a valid P-256 private key');
  }
  if (!derived.equals(point)) throw new CredentialsError('VAPID public and private keys are not a pair');
}
