import type { ApnsStep } from './fake-apns';
import type { FcmStep } from './fake-fcm';
import { HMS_CODES, type HmsStep } from './fake-hms';
import type { WebPushStep } from './fake-web-push';

/** What `PUT /behaviours/{token}` can make the sandbox answer (docs/testing.md#behaviours). */
export const BEHAVIOURS = ['ok', 'unregistered', 'bad_token', 'retry_after', 'outage'] as const;
export type BehaviourName = (typeof BEHAVIOURS)[number];

export const ALL_TOKENS = '*';
export const MAX_BEHAVIOUR_SECONDS = 86_400;

export interface Behaviour {
  behaviour: BehaviourName;
  seconds?: number;
  until?: number;
}

/** Standing answers per recipient or for all (`*`, a recipient's own wins), asked after the real service's checks. */
export class Behaviours {
  private readonly byToken = new Map<string, Behaviour>();

  constructor(private readonly now: () => number = Date.now) {}

  /** `ok` clears; throws a message on a bad one. */
  set(token: string, input: { behaviour?: unknown; seconds?: unknown }): Behaviour {
    const behaviour = input.behaviour;
    if (typeof behaviour !== 'string' || !(BEHAVIOURS as readonly string[]).includes(behaviour)) {
      throw new Error(`behaviour must be one of ${BEHAVIOURS.join(', ')}`);
    }
    const name = behaviour as BehaviourName;
    const timed = name === 'retry_after' || name === 'outage';
    const seconds = input.seconds;
    if (timed && !(Number.isInteger(seconds) && (seconds as number) >= 1 && (seconds as number) <= MAX_BEHAVIOUR_SECONDS)) {
      throw new Error(`seconds must be an integer from 1 to ${MAX_BEHAVIOUR_SECONDS} for ${name}`);
    }
    if (!timed && seconds !== undefined) throw new Error(`seconds is only for retry_after and outage`);
    if (name === 'ok') {
      this.byToken.delete(token);
      return { behaviour: 'ok' };
    }
    const entry: Behaviour = timed ? { behaviour: name, seconds: seconds as number } : { behaviour: name };
    if (name === 'outage') entry.until = this.now() + (seconds as number) * 1000;
    this.byToken.set(token, entry);
    return entry;
  }

  /** Own properties only: a token named `__proto__` is listed like any other. */
  list(): Record<string, Behaviour> {
    const result = Object.create(null) as Record<string, Behaviour>;
    for (const token of this.byToken.keys()) {
      const current = this.current(token, false);
      if (current) result[token] = current;
    }
    return result;
  }

  clear(): void {
    this.byToken.clear();
  }

  current(token: string, fallBack = true): Behaviour | undefined {
    const own = this.byToken.get(token) ?? (fallBack ? this.byToken.get(ALL_TOKENS) : undefined);
    if (own?.until !== undefined && own.until <= this.now()) return undefined;
    return own;
  }

  apns(token: string): ApnsStep | undefined {
    const current = this.current(token);
    switch (current?.behaviour) {
      case 'unregistered':
        return { status: 410, reason: 'Unregistered' };
      case 'bad_token':
        return { status: 400, reason: 'BadDeviceToken' };
      case 'retry_after':
        return { status: 429, reason: 'TooManyRequests', retryAfter: current.seconds };
      case 'outage':
        return { status: 503, reason: 'ServiceUnavailable', retryAfter: remaining(current, this.now()) };
      case 'ok':
      case undefined:
        return undefined;
    }
  }

  fcm(token: string): FcmStep | undefined {
    const current = this.current(token);
    switch (current?.behaviour) {
      case 'unregistered':
        return { status: 404, errorCode: 'UNREGISTERED', message: 'Requested entity was not found.' };
      case 'bad_token':
        return { status: 400, errorCode: 'INVALID_ARGUMENT', message: 'The registration token is not a valid FCM registration token' };
      case 'retry_after':
        return { status: 429, errorCode: 'QUOTA_EXCEEDED', retryAfter: current.seconds };
      case 'outage':
        return { status: 503, errorCode: 'UNAVAILABLE', retryAfter: remaining(current, this.now()) };
      case 'ok':
      case undefined:
        return undefined;
    }
  }

  /** Huawei tells an unknown token only as illegal; a failure of any token fails its whole request. */
  hms(token: string): HmsStep | undefined {
    const current = this.current(token);
    switch (current?.behaviour) {
      case 'unregistered':
      case 'bad_token':
        return { status: 400, code: HMS_CODES.allTokensInvalid };
      case 'retry_after':
        return { status: 503, code: HMS_CODES.internal, msg: 'Flow control', retryAfter: current.seconds };
      case 'outage':
        return { status: 503, code: HMS_CODES.internal, msg: 'System inner error', retryAfter: remaining(current, this.now()) };
      case 'ok':
      case undefined:
        return undefined;
    }
  }

  /** autopush answers 404 for a subscription it never issued. */
  webPush(subscriptionId: string): WebPushStep | undefined {
    const current = this.current(subscriptionId);
    switch (current?.behaviour) {
      case 'unregistered':
        return { status: 410 };
      case 'bad_token':
        return { status: 404 };
      case 'retry_after':
        return { status: 429, retryAfter: current.seconds };
      case 'outage':
        return { status: 503, retryAfter: remaining(current, this.now()) };
      case 'ok':
      case undefined:
        return undefined;
    }
  }
}

function remaining(behaviour: Behaviour, now: number): number {
  return Math.max(1, Math.ceil((behaviour.until! - now) / 1000));
}
