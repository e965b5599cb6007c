import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM under APP_KEY: `v1:` + base64(iv[12] | tag[16] | ciphertext). `context` (app id and
 * column) is bound as associated data, so a value copied into another row fails to open.
 */
const VERSION = 'v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** A sealed value that cannot be opened: wrong APP_KEY, tampering, or not a sealed value at all. */
export class SecretBoxError extends Error {}

/** A key given as base64 text (as APP_KEY is) or as raw bytes. */
export type SecretKey = Buffer | string;

function keyBytes(key: SecretKey): Buffer {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : key;
  if (bytes.length !== KEY_BYTES) throw new SecretBoxError(`APP_KEY must be ${KEY_BYTES} bytes in base64`);
  return bytes;
}

export function seal(plaintext: string, context: string, key: SecretKey): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyBytes(key), iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

/** Opens with the first of `keys` that fits; `index` says which, so a rotation knows what to re-seal. */
export function openWithAny(sealed: string, context: string, keys: readonly SecretKey[]): { plaintext: string; index: number } {
  let failure: unknown = new SecretBoxError('No key to open the sealed secret with');
  for (const [index, key] of keys.entries()) {
    try {
      return { plaintext: open(sealed, context, key), index };
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

/** APP_KEY, then APP_KEY_PREVIOUS while a rotation is under way: the keys `openWithAny` tries. */
export function appKeys(config: { APP_KEY: string; APP_KEY_PREVIOUS?: string | null }): string[] {
  return config.APP_KEY_PREVIOUS ? [config.APP_KEY, config.APP_KEY_PREVIOUS] : [config.APP_KEY];
}

/** What a key rotation looked at and did (`app-key:rotate`). */
export interface ResealTotals {
  secrets: number;
  resealed: number;
  already_current: number;
}

/** One secret of a rotation (docs/operations.md "Rotating APP_KEY"): re-sealed, or null when current; none opens it: throws. */
export function reseal(sealed: string, context: string, keys: readonly SecretKey[], totals: ResealTotals, unopenable: () => Error): string | null {
  totals.secrets++;
  let opened: { plaintext: string; index: number };
  try {
    opened = openWithAny(sealed, context, keys);
  } catch {
    throw unopenable();
  }
  if (opened.index === 0) {
    totals.already_current++;
    return null;
  }
  totals.resealed++;
  return seal(opened.plaintext, context, keys[0]);
}

export function open(sealed: string, context: string, key: SecretKey): string {
  if (!sealed.startsWith(VERSION)) throw new SecretBoxError('Not a sealed secret (expected the "v1:" prefix)');
  const raw = Buffer.from(sealed.slice(VERSION.length), 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('Sealed secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', keyBytes(key), raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    // GCM cannot tell a wrong key from a modified value; both mean "do not trust this".
    throw new SecretBoxError('Cannot open sealed secret: APP_KEY is not the key it was sealed with, or the value was modified');
  }
}
