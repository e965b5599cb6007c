import { EnvironmentVariables } from '../config/env';
import { TokenCache } from './token-cache';
import { TokenChangesRepository } from './token-changes.repository';
import { hashToken, TokensService } from './tokens.service';
import { TokenCheckRow, TokensRepository } from './tokens.repository';

/** In-memory api_tokens: one row, and a count of the last_used_at writes. */
class FakeTokens {
  touches = 0;
  reads = 0;
  constructor(readonly row: TokenCheckRow & { hash: string }) {}
  async findByHash(hash: string): Promise<TokenCheckRow | undefined> {
    this.reads++;
    return hash === this.row.hash ? { ...this.row } : undefined;
  }
  async touchLastUsed(): Promise<void> {
    this.touches++;
  }
  async revoke(id: string) {
    this.row.revoked_at = new Date();
    return { ...this.row, id, name: null, created_at: new Date() };
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('TokensService.authenticate with kept tokens', () => {
  const token = 'pns_' + 'a'.repeat(43);
  let tokens: FakeTokens;
  let cache: TokenCache;
  let service: TokensService;

  beforeEach(async () => {
    tokens = new FakeTokens({
      hash: hashToken(token),
      id: 't1',
      app_id: 'a1',
      abilities: ['*'],
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
    });
    const changes = { listen: async () => ({ close: async () => undefined }) } as unknown as TokenChangesRepository;
    cache = new TokenCache(changes, Object.assign(new EnvironmentVariables(), { TOKEN_CACHE: true }));
    service = new TokensService(tokens as unknown as TokensRepository, cache);
    // The first lookup starts listening; from then on tokens are kept.
    await service.authenticate(token);
    await settle();
    expect(cache.listening).toBe(true);
    tokens.touches = 0;
    tokens.reads = 0;
  });
  afterEach(() => cache.onModuleDestroy());

  it('reads a token once, and the kept token remembers its last_used_at write', async () => {
    for (let n = 0; n < 3; n++) {
      expect(await service.authenticate(token)).toEqual({ tokenId: 't1', appId: 'a1', abilities: ['*'] });
      await settle();
    }
    expect(tokens.reads).toBe(1);
    // The database row had no last_used_at: one write, then the kept token knows of it.
    expect(tokens.touches).toBe(1);
  });

  it('refuses a token revoked through it on the very next request, without waiting for an announcement', async () => {
    await service.authenticate(token);
    await service.revoke('t1');
    expect(await service.authenticate(token)).toBeNull();
    expect(tokens.reads).toBe(2);
  });
});
