import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { type AudienceCount as Count, ApiError, api } from '../../api';
import { formatNumber } from '../../format';
import type { Recipients } from './draft';

/** The count's query: the composer reads it again (cached) when it asks to confirm. */
export const countQuery = (appId: string, recipients: Recipients) => ({
  queryKey: ['audience-count', appId, JSON.stringify(recipients)],
  queryFn: ({ signal }: { signal: AbortSignal }) => api.countAudience(appId, recipients, signal),
  retry: false,
  staleTime: 10_000,
});

/** `value`, once it has stayed the same for `ms` (typing a condition asks one count, not one per key). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  const key = JSON.stringify(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, ms]);
  return settled;
}

/** Whether the recipients are complete enough to count: a list with at least one entry, a topic named. */
export function countable(recipients: Recipients | null): recipients is Recipients {
  if (!recipients) return false;
  if ('user_ids' in recipients) return recipients.user_ids.length > 0;
  if ('installation_ids' in recipients) return recipients.installation_ids.length > 0;
  if ('tags' in recipients) return recipients.tags.length > 0;
  if ('topic' in recipients) return recipients.topic !== '';
  return true;
}

/**
 * The live count of the audience being built (docs/api.md#count-an-audience), asked again a moment
 * after each change; a refused audience hands its field errors to the form (`onErrors`).
 */
export function AudienceCountLine({
  appId,
  recipients,
  onErrors,
}: {
  appId: string;
  recipients: Recipients | null;
  onErrors: (errors: Record<string, string[]>) => void;
}) {
  const settled = useSettled(recipients, 350);
  const ready = countable(settled);
  const count = useQuery({ ...countQuery(appId, settled ?? { all: true }), enabled: ready, placeholderData: keepPreviousData });
  const refused = count.error instanceof ApiError && count.error.status === 422 ? count.error.errors : null;
  const refusedKey = JSON.stringify(refused ?? {});
  useEffect(() => onErrors(refused ?? {}), [refusedKey]); // eslint-disable-line react-hooks/exhaustive-deps

  let text: React.ReactNode;
  if (!ready) text = <span className="muted">Complete the audience to see how many it reaches.</span>;
  else if (count.isPending) text = <span className="muted">Counting…</span>;
  else if (count.isError) {
    text = refused ? (
      <span className="muted">Not counted: see the audience’s fields.</span>
    ) : (
      <span className="error-text">Not counted: {count.error.message}</span>
    );
  } else text = <CountText count={count.data} stale={count.isFetching || settled !== recipients} />;
  return (
    <div className="audience-count" role="status" aria-label="Audience count" aria-live="polite">
      {text}
    </div>
  );
}

function CountText({ count, stale }: { count: Count; stale: boolean }) {
  const p = count.platforms;
  return (
    <p className={stale ? 'stale' : undefined}>
      <strong className="big">{formatNumber(count.installations)}</strong> installations · {formatNumber(count.sendable)} can receive it ·{' '}
      {formatNumber(count.users)} users
      <br />
      <span className="small muted">
        iOS {formatNumber(p.ios)} · Android {formatNumber(p.android)} · Web {formatNumber(p.web)} · Huawei {formatNumber(p.huawei)}
      </span>
    </p>
  );
}
