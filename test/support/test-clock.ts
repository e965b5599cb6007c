import { Clock } from '../../src/common/time';

/**
 * The Clock a test moves: the real time plus what the test advanced it by. Given to an app with
 * `override: (builder) => builder.overrideProvider(Clock).useValue(clock)`.
 */
export class TestClock extends Clock {
  private offsetMs = 0;

  override now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}
