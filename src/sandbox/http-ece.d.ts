// http_ece ships no types. This covers the parts the fakes use (see
// node_modules/http_ece/ece.js); binary parameters may be Buffers or
// base64url strings.
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  export interface EceParams {
    /** Defaults to 'aes128gcm' (RFC 8188); 'aesgcm' is the legacy draft. */
    version?: 'aes128gcm' | 'aesgcm';
    /** Explicit 16-byte content-encryption key, instead of ECDH. */
    key?: Buffer | string;
    /** The local ECDH key pair: the receiver's when decrypting (an ECDH object, not a KeyObject). */
    privateKey?: ECDH;
    /** The peer's public key when encrypting (aes128gcm decrypt reads it from the header). */
    dh?: Buffer | string;
    /** RFC 8291 auth secret (16 bytes). */
    authSecret?: Buffer | string;
    salt?: Buffer | string;
    keyid?: Buffer | string;
    rs?: number;
    pad?: number;
  }

  export function encrypt(buffer: Buffer, params: EceParams): Buffer;
  export function decrypt(buffer: Buffer, params: EceParams): Buffer;
}
