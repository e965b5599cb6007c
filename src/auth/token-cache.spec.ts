import { EnvironmentVariables } from '../config/env';
import { TokenCache, TokenRecord } from './token-cache';
import { TokenChangeEvents, TokenChangesRepository } from './token-changes.repository';

/** An in-memory stand-in for the LISTEN connection: the test decides when it is up, announces and drops. */
class FakeChanges {
  attempts: { events: TokenChangeEvents; resolve: () => void; reject: (error: Error) => void; closed: boolean }[] = [];
  listen(events: TokenChangeEvents) {
    return new Promise<{ close(): Promise<void> }>((resolve, reject) => {
      const attempt = { events, closed: false, resolve: () => resolve({ close: async () => void (attempt.closed = true) }), reject };
      this.attempts.push(attempt);
    });
  }
  get last() {
    return this.attempts[this.attempts.length - 1];
  }
}

const RECORD: TokenRecord = { id: 't1', app_id: 'a1', abilities: ['*'], expires_at: null, last_used_at: null };
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('TokenCache', () => {
  let changes: FakeChanges;
  let cache: TokenCache;
  const make = (tokenCache = true) => {
    changes = new FakeChanges();
    cache = new TokenCache(changes as unknown as TokenChangesRepository, Object.assign(new EnvironmentVariables(), { TOKEN_CACHE: tokenCache }));
  };
  const goLive = async () => {
    expect(cache.get('h')).toBeUndefined();
    changes.last.resolve();
    await settle();
    expect(cache.listening).toBe(true);
  };

  beforeEach(() => make());
  afterEach(() => cache.onModuleDestroy());

  it('keeps nothing until listening, and starts listening on the first lookup', async () => {
    cache.keep('h', RECORD, cache.epoch);
    expect(cache.get('h')).toBeUndefined();
    expect(changes.attempts).toHaveLength(1);
    cache.get('h');
    expect(changes.attempts).toHaveLength(1);
    await goLive();
    cache.keep('h', RECORD, cache.epoch);
    expect(cache.get('h')).toMatchObject(RECORD);
  });

  it('drops everything on an announcement, and does not keep a read that began before it', async () => {
    await goLive();
    cache.keep('h', RECORD, cache.epoch);
    const epoch = cache.epoch;
    changes.last.events.changed();
    expect(cache.get('h')).toBeUndefined();
    cache.keep('h', RECORD, epoch);
    expect(cache.get('h')).toBeUndefined();
    cache.keep('h', RECORD, cache.epoch);
    expect(cache.get('h')).toBeDefined();
  });

  it('forgets everything when the listener is lost, waits a second, then listens again', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      await goLive();
      cache.keep('h', RECORD, cache.epoch);
      const epoch = cache.epoch;
      changes.last.events.lost(new Error('terminated'));
      expect(cache.listening).toBe(false);
      expect(cache.get('h')).toBeUndefined();
      cache.keep('h', RECORD, epoch);
      expect(changes.attempts).toHaveLength(1);
      jest.advanceTimersByTime(1000);
      expect(cache.get('h')).toBeUndefined();
      expect(changes.attempts).toHaveLength(2);
      changes.last.resolve();
      await settle();
      expect(cache.listening).toBe(true);
      expect(cache.get('h')).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });

  it('ignores a failed attempt after a newer one, and closes a listener that comes up after shutdown', async () => {
    cache.get('h');
    const first = changes.last;
    await cache.onModuleDestroy();
    first.resolve();
    await settle();
    expect(cache.listening).toBe(false);
    // The listener that came up late was closed, and nothing more is attempted.
    expect(first.closed).toBe(true);
    expect(changes.attempts).toHaveLength(1);
    cache.get('h');
    expect(changes.attempts).toHaveLength(1);
  });

  it('reads a kept token again after a minute, as a backstop for a silently dead listener', async () => {
    await goLive();
    cache.keep('h', RECORD, cache.epoch, 1_000);
    expect(cache.get('h', 61_000)).toBeDefined();
    expect(cache.get('h', 61_001)).toBeUndefined();
  });

  it('with TOKEN_CACHE=false never listens nor keeps', async () => {
    make(false);
    cache.keep('h', RECORD, cache.epoch);
    expect(cache.get('h')).toBeUndefined();
    expect(changes.attempts).toHaveLength(0);
  });
});
