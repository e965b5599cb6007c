import { createCipheriv, createECDH, createHmac, createSecretKey, ECDH, KeyObject, randomBytes } from 'node:crypto';

/** RFC 8291 on node:crypto, byte for byte http_ece's output (docs/decisions/0006-web-push-encryption-on-node-crypto.md). */

const RECORD_SIZE = 4096;
const LAST_RECORD_DELIMITER = Buffer.from([2]);
const KEY_INFO = Buffer.from('WebPush: info\0');
const CEK_INFO = Buffer.from('Content-Encoding: aes128gcm\0\x01');
const NONCE_INFO = Buffer.from('Content-Encoding: nonce\0\x01');
const ONE = Buffer.from([1]);

const HEADER_BYTES = 16 + 4 + 1 + 65;

export const encryptedLength = (payloadBytes: number): number => HEADER_BYTES + payloadBytes + LAST_RECORD_DELIMITER.length + 16;

export interface EncryptedMessage {
  body: Buffer;
}

const hmac = (key: KeyObject, ...parts: Buffer[]): Buffer => {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

/** Encrypts for subscription keys `p256dh` and `auth` with a fresh key pair and salt (RFC 8291 §3.4); throws when p256dh is off the curve. */
export function encryptWebPushMessage(payload: Buffer, p256dh: Buffer, auth: Buffer, senderKeys?: ECDH, salt: Buffer = randomBytes(16)): EncryptedMessage {
  // An oversized payload still goes as one record, for the push service to refuse with 413.
  const recordSize = Math.max(RECORD_SIZE, payload.length + 17);
  const keys = senderKeys ?? createECDH('prime256v1');
  const senderPublicKey = senderKeys ? senderKeys.getPublicKey() : keys.generateKeys();
  const sharedSecret = keys.computeSecret(p256dh);
  // RFC 8291 §3.3 IKM; HKDF with L <= 32 is one extract and one expand (RFC 5869).
  const keyPrk = createSecretKey(hmac(createSecretKey(auth), sharedSecret));
  const ikm = hmac(keyPrk, KEY_INFO, p256dh, senderPublicKey, ONE);
  const prk = createSecretKey(hmac(createSecretKey(salt), ikm));
  const contentKey = createSecretKey(hmac(prk, CEK_INFO).subarray(0, 16));
  const nonce = hmac(prk, NONCE_INFO).subarray(0, 12);
  const cipher = createCipheriv('aes-128-gcm', contentKey, nonce);
  const header = Buffer.allocUnsafe(21);
  salt.copy(header, 0);
  header.writeUInt32BE(recordSize, 16);
  header[20] = senderPublicKey.length;
  return {
    body: Buffer.concat([header, senderPublicKey, cipher.update(payload), cipher.update(LAST_RECORD_DELIMITER), cipher.final(), cipher.getAuthTag()]),
  };
}
