import type { Response } from 'express';

/** Aborts when the client hangs up before its answer is sent: its statement is then cancelled. */
export function clientGone(res: Response): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}
