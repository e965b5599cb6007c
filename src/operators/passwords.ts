import { hash, verify } from '@node-rs/argon2';

// argon2id (the library's default algorithm) with OWASP's minimum: 19 MiB, 2 passes, 1 lane.
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
/** Verified when the e-mail is unknown, so an unknown account costs what a known one does. */
const DECOY = hash('decoy password, never a real one', OPTIONS);

export const MIN_PASSWORD_LENGTH = 12;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** Whether `password` matches `stored`; with no stored hash, a decoy is verified and false answered. */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    await verify(await DECOY, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
