import { randomBytes } from 'node:crypto';
import { appKeys, open, openWithAny, reseal, seal, SecretBoxError } from './secret-box';

describe('secret box', () => {
  const key = randomBytes(32).toString('base64');

  it('round-trips text, including multi-byte characters and PEM blocks', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMG…ü✓\n-----END PRIVATE KEY-----\n';
    expect(open(seal(pem, 'ctx', key), 'ctx', key)).toBe(pem);
    expect(open(seal('', '', key), '', key)).toBe('');
  });

  it('uses the v1 format: base64 of a 12-byte iv, a 16-byte tag and the ciphertext', () => {
    const sealed = seal('secret', '', key);
    expect(sealed).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(sealed.slice(3), 'base64')).toHaveLength(12 + 16 + Buffer.byteLength('secret'));
    expect(sealed).not.toContain('secret');
  });

  it('uses a fresh iv every time', () => {
    expect(seal('same', '', key)).not.toBe(seal('same', '', key));
  });

  it('refuses a wrong key with a clear error', () => {
    const sealed = seal('secret', '', key);
    expect(() => open(sealed, '', randomBytes(32))).toThrow(/APP_KEY is not the key it was sealed with, or the value was modified/);
  });

  it('refuses any modified byte (iv, tag or ciphertext)', () => {
    const sealed = seal('a secret value', '', key);
    const raw = Buffer.from(sealed.slice(3), 'base64');
    for (const index of [0, 11, 12, 27, 28, raw.length - 1]) {
      const tampered = Buffer.from(raw);
      tampered[index] ^= 0x01;
      expect(() => open(`v1:${tampered.toString('base64')}`, '', key)).toThrow(SecretBoxError);
    }
  });

  it('refuses a value sealed for another context (row or column)', () => {
    const sealed = seal('secret', 'app-1:apns_private_key', key);
    expect(() => open(sealed, 'app-2:apns_private_key', key)).toThrow(SecretBoxError);
  });

  it('refuses values that are not sealed, or truncated', () => {
    expect(() => open('plaintext', '', key)).toThrow(/expected the "v1:" prefix/);
    expect(() => open('v1:AAAA', '', key)).toThrow(/truncated/);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => seal('x', '', Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
  });

  it('openWithAny tries the keys in order and says which one opened it (APP_KEY, then APP_KEY_PREVIOUS)', () => {
    const current = randomBytes(32).toString('base64');
    const previous = randomBytes(32).toString('base64');
    expect(openWithAny(seal('new', 'ctx', current), 'ctx', [current, previous])).toEqual({ plaintext: 'new', index: 0 });
    expect(openWithAny(seal('old', 'ctx', previous), 'ctx', [current, previous])).toEqual({ plaintext: 'old', index: 1 });
    expect(() => openWithAny(seal('old', 'ctx', previous), 'ctx', [current])).toThrow(SecretBoxError);
    expect(() => openWithAny(seal('x', 'ctx', key), 'other ctx', [current, key])).toThrow(/APP_KEY is not the key/);
  });

  it('reseal seals again under APP_KEY what opens only under APP_KEY_PREVIOUS, counts both, and stops on what opens under neither', () => {
    const current = randomBytes(32).toString('base64');
    const previous = randomBytes(32).toString('base64');
    const totals = { secrets: 0, resealed: 0, already_current: 0 };
    const refused = () => new Error('refused');
    const resealed = reseal(seal('old', 'ctx', previous), 'ctx', [current, previous], totals, refused);
    expect(resealed && open(resealed, 'ctx', current)).toBe('old');
    expect(reseal(seal('new', 'ctx', current), 'ctx', [current, previous], totals, refused)).toBeNull();
    expect(totals).toEqual({ secrets: 2, resealed: 1, already_current: 1 });
    expect(() => reseal(seal('x', 'ctx', key), 'ctx', [current, previous], totals, refused)).toThrow('refused');
    expect(appKeys({ APP_KEY: current })).toEqual([current]);
    expect(appKeys({ APP_KEY: current, APP_KEY_PREVIOUS: previous })).toEqual([current, previous]);
  });
});
