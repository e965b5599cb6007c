import type { NotificationAbTest, NotificationDetail, NotificationVariant } from '../../api';
import { TableScroll } from '../../components/TableScroll';
import { Time } from '../../components/Time';
import { formatNumber, formatRate } from '../../format';

export type VariantResult = NotificationVariant;
export type AbTestState = NotificationAbTest;

/** Read null-safely: a server from before variants (docs/api.md#variants) leaves both out. */
type MaybeVariants = Omit<NotificationDetail, 'variants' | 'ab_test'> & { variants?: VariantResult[] | null; ab_test?: AbTestState | null };
export const variantsOf = (n: NotificationDetail): VariantResult[] => (n as MaybeVariants).variants ?? [];
export const abTestOf = (n: NotificationDetail): AbTestState | null => (n as MaybeVariants).ab_test ?? null;

const PHASE_WORDS: Record<AbTestState['phase'], string> = {
  sample: 'the variants went to a sample; the winner is picked later',
  winner: 'the winner is going to the rest of the audience',
  done: 'the winner went to the rest of the audience',
};

/**
 * The variants of a send with each one's statistics, and its A/B test's phase and winner when it has
 * one (docs/api.md#variants). Nothing for a send without variants.
 */
export function VariantsSection({ n }: { n: NotificationDetail }) {
  const variants = variantsOf(n);
  const ab = abTestOf(n);
  if (variants.length === 0 && !ab) return null;
  const total = variants.reduce((sum, v) => sum + v.weight, 0);
  const metric = (n.options as { ab_test?: { metric?: string } } | null)?.ab_test?.metric;
  return (
    <section aria-labelledby="variants-title" className="card">
      <h2 id="variants-title">Variants</h2>
      {ab ? (
        <dl className="pairs" aria-label="A/B test">
          <dt>A/B test</dt>
          <dd>
            <span className="badge" data-phase={ab.phase}>
              {ab.phase}
            </span>{' '}
            <span className="muted">{PHASE_WORDS[ab.phase] ?? ''}</span>
          </dd>
          <dt>Winner</dt>
          <dd>{ab.winner ? <strong className="mono">{ab.winner}</strong> : <span className="muted">not picked yet</span>}</dd>
          <dt>Decided</dt>
          <dd>
            <Time iso={ab.decided_at} />
          </dd>
          {metric ? (
            <>
              <dt>Picked by</dt>
              <dd>{metric === 'displayed' ? 'displays' : 'opens'} per message accepted</dd>
            </>
          ) : null}
        </dl>
      ) : null}
      {variants.length > 0 ? (
        <TableScroll label="Variants table">
          <table className="data fits variant-figures">
            <caption className="visually-hidden">Variants of this notification</caption>
            <thead>
              <tr>
                <th scope="col">Variant</th>
                <th scope="col" className="num">
                  Weight
                </th>
                <th scope="col" className="num">
                  Installations
                </th>
                <th scope="col" className="num">
                  Accepted
                </th>
                <th scope="col" className="num">
                  Displayed
                </th>
                <th scope="col" className="num">
                  Opened
                </th>
              </tr>
            </thead>
            <tbody>
              {variants.map((v) => {
                const s = v.statistics;
                return (
                  <tr key={v.key}>
                    <th scope="row" className="mono">
                      {v.key}
                      {ab?.winner === v.key ? (
                        <>
                          {' '}
                          <span className="badge">winner</span>
                        </>
                      ) : null}
                    </th>
                    <td className="num">
                      {formatNumber(v.weight)}
                      {total > 0 ? <span className="muted small"> ({formatRate(v.weight, total)})</span> : null}
                    </td>
                    <td className="num">{formatNumber(s?.installations ?? 0)}</td>
                    <td className="num">{formatNumber(s?.accepted ?? 0)}</td>
                    <td className="num">
                      {formatNumber(s?.displayed ?? 0)}
                      {s && s.accepted > 0 ? <span className="muted small"> ({formatRate(s.displayed, s.accepted)})</span> : null}
                    </td>
                    <td className="num">
                      {formatNumber(s?.opened ?? 0)}
                      {s && s.accepted > 0 ? <span className="muted small"> ({formatRate(s.opened, s.accepted)})</span> : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <p className="muted small">Displayed and opened as a share of the variant’s accepted messages.</p>
    </section>
  );
}
