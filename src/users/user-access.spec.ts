import { mayActForUser } from './user-access';

describe('mayActForUser (docs/api.md#user-access)', () => {
  const auth = (abilities: string[]) => ({ tokenId: 't', appId: 'a', abilities });
  // The app's answer for a hash: null when proven (or verification off), else why not.
  const apps = (answer: 'missing' | 'mismatch' | null) => ({ userIdHashProblem: jest.fn().mockResolvedValue(answer) });

  it('lets users:manage and * act for any user without asking for a proof', async () => {
    const refusing = apps('missing');
    expect(await mayActForUser(auth(['users:manage']), 'alice', undefined, refusing)).toBe(true);
    expect(await mayActForUser(auth(['*']), 'alice', undefined, refusing)).toBe(true);
    expect(refusing.userIdHashProblem).not.toHaveBeenCalled();
  });

  it('lets users:self act for the user the app accepts, with the hash it was given', async () => {
    const accepting = apps(null);
    expect(await mayActForUser(auth(['users:self', 'installations:write']), 'alice', 'ab12', accepting)).toBe(true);
    expect(accepting.userIdHashProblem).toHaveBeenCalledWith('a', 'alice', 'ab12');
  });

  it('refuses users:self with a missing or wrong proof', async () => {
    expect(await mayActForUser(auth(['users:self']), 'alice', undefined, apps('missing'))).toBe(false);
    expect(await mayActForUser(auth(['users:self']), 'alice', 'ab12', apps('mismatch'))).toBe(false);
  });

  it('refuses a token with neither ability', async () => {
    expect(await mayActForUser(auth(['installations:write', 'notifications:send']), 'alice', undefined, apps(null))).toBe(false);
  });
});
