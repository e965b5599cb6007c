import { createECDH, randomBytes } from 'node:crypto';
import { encryptedLength, encryptWebPushMessage } from './web-push-encryption';

// http_ece is what web-push encrypts with (and what the fake push service decrypts with); it
// ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ece = require('http_ece') as {
  encrypt(content: Buffer, params: Record<string, unknown>): Buffer;
  decrypt(content: Buffer, params: Record<string, unknown>): Buffer;
};

describe('encryptWebPushMessage (RFC 8291)', () => {
  const userAgent = createECDH('prime256v1');
  userAgent.generateKeys();
  const auth = randomBytes(16);
  const payload = Buffer.from(JSON.stringify({ title: 'Hello', body: 'é'.repeat(300) }));

  it('gives byte for byte what http_ece gives for the same sender keys and salt', () => {
    const sender = createECDH('prime256v1');
    sender.generateKeys();
    const salt = randomBytes(16);
    const ours = encryptWebPushMessage(payload, userAgent.getPublicKey(), auth, sender, salt).body;
    const theirs = ece.encrypt(payload, { version: 'aes128gcm', dh: userAgent.getPublicKey('base64url'), privateKey: sender, salt, authSecret: auth });
    expect(ours.equals(theirs)).toBe(true);
  });

  it('is decrypted by the user agent, with a fresh key pair and salt every time', () => {
    const first = encryptWebPushMessage(payload, userAgent.getPublicKey(), auth).body;
    const second = encryptWebPushMessage(payload, userAgent.getPublicKey(), auth).body;
    for (const body of [first, second]) {
      expect(ece.decrypt(body, { version: 'aes128gcm', privateKey: userAgent, authSecret: auth }).equals(payload)).toBe(true);
    }
    // Salt (bytes 0-15) and sender public key (bytes 21-85) differ; record size 4096, key id of 65 bytes.
    expect(first.subarray(0, 16).equals(second.subarray(0, 16))).toBe(false);
    expect(first.subarray(21, 86).equals(second.subarray(21, 86))).toBe(false);
    expect(first.readUInt32BE(16)).toBe(4096);
    expect(first[20]).toBe(65);
    expect(first.length).toBe(86 + payload.length + 1 + 16);
  });

  it('throws for a p256dh that is not on the curve', () => {
    const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]);
    expect(() => encryptWebPushMessage(payload, offCurve, auth)).toThrow();
  });

  it('sends a payload too large for a 4096-byte record as one larger record (for the push service to refuse)', () => {
    for (const size of [4079, 4080, 5000]) {
      const big = Buffer.alloc(size, 'x');
      const body = encryptWebPushMessage(big, userAgent.getPublicKey(), auth).body;
      expect(body.readUInt32BE(16)).toBe(Math.max(4096, size + 17));
      expect(ece.decrypt(body, { version: 'aes128gcm', privateKey: userAgent, authSecret: auth }).equals(big)).toBe(true);
    }
  });

  it('makes a body of encryptedLength bytes for every payload size (the Content-Length sent ahead of it)', () => {
    for (const size of [0, 1, 255, payload.length, 4079, 4080, 5000]) {
      expect(encryptWebPushMessage(Buffer.alloc(size, 'x'), userAgent.getPublicKey(), auth).body.length).toBe(encryptedLength(size));
    }
  });
});
