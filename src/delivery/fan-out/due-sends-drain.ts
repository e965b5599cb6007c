/**
 * What the fan-out queue's processor calls for a due-sends job (docs/api.md#due-sends); provided by
 * `due-sends/DueSendsService`, which imports fan-out/ (so fan-out/ names only this, no circle).
 */
export abstract class DueSendsDrain {
  /** Claims group after group until no due send is left; `onFull` once, when the first group was full. */
  abstract drain(onFull?: () => Promise<unknown>): Promise<unknown>;
}
