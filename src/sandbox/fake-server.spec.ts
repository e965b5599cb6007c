import { createServer } from 'node:net';
import { FakeTlsServer } from './fake-server';

/** The smallest fake: what the base class does with its log and its standing answers. */
class Recorder extends FakeTlsServer<string, number> {
  protected createServer() {
    return createServer();
  }

  answer(key: string): string | undefined {
    return this.nextStep(key);
  }
}

describe('FakeTlsServer', () => {
  it('tells a listener about every record and keeps about `limit` of them, the log still a plain array', () => {
    const fake = new Recorder();
    const seen: number[] = [];
    fake.logTo((record) => seen.push(record), 10);
    for (let n = 0; n < 25; n++) fake.requests.push(n);
    expect(seen).toHaveLength(25);
    expect(fake.requests.length).toBeLessThanOrEqual(10);
    expect(fake.requests.at(-1)).toBe(24);
    expect(Array.isArray(fake.requests) && Object.getPrototypeOf(fake.requests) === Array.prototype).toBe(true);
    expect(Object.keys(fake.requests)).not.toContain('push');
  });

  it('answers from a script first, then from its standing answer', () => {
    const fake = new Recorder();
    fake.standingAnswer = (key) => (key === 'gone' ? 'standing' : undefined);
    fake.script('gone', ['scripted']);
    expect([fake.answer('gone'), fake.answer('gone'), fake.answer('other')]).toEqual(['scripted', 'standing', undefined]);
  });
});
