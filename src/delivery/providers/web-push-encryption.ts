import { createCipheriv, createECDH, createHmac, createSecretKey, ECDH, KeyObject, randomBytes } from 'node:crypto';

/**
 * RFC 8291 message encryption (the `aes128gcm` content coding of RFC 8188, one record), written on
 * node:crypto rather than through web-push's `http_ece`: the result is byte for byte what
 * http_ece produces for the same key pair and salt (web-push-encryption.spec.ts checks it, and
 * the fake push service decrypts every message with http_ece), at less CPU: each secret becomes a
 * KeyObject once and HKDF's extract step is shared, where http_ece pays Node's key checks on
 * every Buffer key (docs/decisions/0006-web-push-encryption-on-node-crypto.md).
 */

/** RFC 8291 §4: the message is one record; 4096 is the record size web-push (http_ece) writes. */
const RECORD_SIZE = 4096;
/** RFC 8188 §2: the padding delimiter of the last (here the only) record. */
const LAST_RECORD_DELIMITER = Buffer.from([2]);
const KEY_INFO = Buffer.from('WebPush: info\0');
const CEK_INFO = Buffer.from('Content-Encoding: aes128gcm\0\x01');
const NONCE_INFO = Buffer.from('Content-Encoding: nonce\0\x01');
const ONE = Buffer.from([1]);

/** The RFC 8188 header before the record: salt (16), record size (4), key id length (1), the sender's P-256 public key (65). */
const HEADER_BYTES = 16 + 4 + 1 + 65;

/** The body's length for a payload of `payloadBytes`: the header, the payload, its delimiter and the tag. */
export const encryptedLength = (payloadBytes: number): number => HEADER_BYTES + payloadBytes + LAST_RECORD_DELIMITER.length + 16;

export interface EncryptedMessage {
  /** The request body: RFC 8188 header (salt, record size, the sender's public key) and the record. */
  body: Buffer;
}

const hmac = (key: KeyObject, ...parts: Buffer[]): Buffer => {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

/**
 * Encrypts `payload` for the user agent whose subscription keys are `p256dh` (65-byte uncompressed
 * P-256 point) and `auth` (16 bytes), with a fresh ECDH key pair and salt per message (RFC 8291
 * §3.4 requires both). `senderKeys` and `salt` exist for tests only. Throws when p256dh is not
 * a point on the curve.
 */
export function encryptWebPushMessage(payload: Buffer, p256dh: Buffer, auth: Buffer, senderKeys?: ECDH, salt: Buffer = randomBytes(16)): EncryptedMessage {
  // The record holds the payload, its delimiter and the 16-byte tag. payloads.ts keeps Web Push
  // payloads below 4096 - 17; a larger one still goes as one record, for the push service to
  // refuse with 413 as it would any body over 4096 bytes.
  const recordSize = Math.max(RECORD_SIZE, payload.length + 17);
  const keys = senderKeys ?? createECDH('prime256v1');
  const senderPublicKey = senderKeys ? senderKeys.getPublicKey() : keys.generateKeys();
  const sharedSecret = keys.computeSecret(p256dh);
  // RFC 8291 §3.3: IKM = HKDF(auth, ecdh_secret, "WebPush: info" || 0x00 || ua_public || as_public, 32).
  // HKDF with L <= 32 is one extract and one expand block (RFC 5869).
  const keyPrk = createSecretKey(hmac(createSecretKey(auth), sharedSecret));
  const ikm = hmac(keyPrk, KEY_INFO, p256dh, senderPublicKey, ONE);
  // RFC 8188 §2.2-2.3: CEK and NONCE from one PRK = HMAC(salt, IKM).
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
