import type { Statistics } from '../../api';
import { formatNumber, formatRate, funnel } from '../../format';

/** accepted → received → displayed → opened, each with its share of the accepted deliveries. */
export function FunnelSteps({ statistics, compact = false }: { statistics: Statistics; compact?: boolean }) {
  const steps = funnel(statistics);
  return (
    <ol className={compact ? 'funnel compact' : 'funnel'} aria-label="Funnel">
      {steps.map(({ step, count }) => (
        <li key={step}>
          <span className="funnel-step">{step}</span> <span className="funnel-count">{formatNumber(count)}</span>
          {step === 'accepted' ? null : <span className="funnel-rate"> ({formatRate(count, statistics.accepted)})</span>}
        </li>
      ))}
    </ol>
  );
}
