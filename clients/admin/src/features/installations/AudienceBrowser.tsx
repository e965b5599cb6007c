import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type AudienceCount, type BrowseRequest, type Installation, api } from '../../api';
import { ErrorNote, Loading } from '../../components/Page';
import { Time } from '../../components/Time';
import { TableScroll } from '../../components/TableScroll';
import { Link } from '../../router';
import { userPath } from '../users/paths';
import { PUSH_PROVIDER_LABELS } from '../../vocabulary';
import { type Combinator, type ConditionRow, FIELDS, type FilterNode, filterOf, newRow, opsOf, takesList, takesNoValue } from './conditions';

/**
 * The app's installations, page by page, filtered with the API's expression (docs/api.md#audience-filters)
 * built from simple conditions joined by and/or; the count of the filter (the API's audience count) above.
 */
export function AudienceBrowser({ appId }: { appId: string }) {
  const [rows, setRows] = useState<ConditionRow[]>([]);
  const [combinator, setCombinator] = useState<Combinator>('and');
  const [applied, setApplied] = useState<FilterNode | null>(null);
  // The cursors of the pages before this one: "Previous" pops, "Next" pushes.
  const [cursors, setCursors] = useState<string[]>([]);
  const pageAt = (cursor: string | null) => ({
    queryKey: ['browse', appId, JSON.stringify(applied), cursor],
    queryFn: () => api.browseInstallations(appId, { filter: applied ?? undefined, cursor: cursor ?? undefined } as BrowseRequest),
  });
  const page = useQuery(pageAt(cursors.at(-1) ?? null));
  // The count comes with the first page (cached while later pages are shown).
  const first = useQuery(pageAt(null));
  const count = first.data?.meta.count;

  const change = (index: number, patch: Partial<ConditionRow>) =>
    setRows(
      rows.map((row, i) => {
        if (i !== index) return row;
        const next = { ...row, ...patch };
        // A field change may leave the op without meaning: its first op then.
        if (!opsOf(next.field).includes(next.op)) next.op = opsOf(next.field)[0];
        return next;
      }),
    );
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setApplied(filterOf(rows, combinator));
    setCursors([]);
  };

  return (
    <section aria-labelledby="browse-title" className="card">
      <h2 id="browse-title">Browse</h2>
      <form onSubmit={apply} aria-label="Filter installations">
        {rows.length > 1 ? (
          <p>
            <label htmlFor="combinator">Match</label>{' '}
            <select id="combinator" value={combinator} onChange={(e) => setCombinator(e.target.value as Combinator)}>
              <option value="and">all conditions (and)</option>
              <option value="or">any condition (or)</option>
            </select>
          </p>
        ) : null}
        {rows.map((row, i) => (
          <fieldset key={i} className="inline-form" aria-label={`Condition ${i + 1}`}>
            <select aria-label={`Field ${i + 1}`} value={row.field} onChange={(e) => change(i, { field: e.target.value as ConditionRow['field'] })}>
              {FIELDS.map((field) => (
                <option key={field} value={field}>
                  {field === 'properties' ? 'property…' : field}
                </option>
              ))}
            </select>
            {row.field === 'properties' ? (
              <input aria-label={`Property key ${i + 1}`} placeholder="key" value={row.key} onChange={(e) => change(i, { key: e.target.value })} />
            ) : null}
            <select aria-label={`Op ${i + 1}`} value={row.op} onChange={(e) => change(i, { op: e.target.value as ConditionRow['op'] })}>
              {opsOf(row.field).map((op) => (
                <option key={op} value={op}>
                  {op}
                </option>
              ))}
            </select>
            {takesNoValue(row.op) ? null : (
              <input
                aria-label={`Value ${i + 1}`}
                placeholder={takesList(row.op) ? 'a, b, c' : row.op.endsWith('within_last') ? '7d' : 'value'}
                value={row.value}
                onChange={(e) => change(i, { value: e.target.value })}
              />
            )}
            <button type="button" onClick={() => setRows(rows.filter((_, j) => j !== i))}>
              Remove
            </button>
          </fieldset>
        ))}
        <p className="inline-form">
          <button type="button" onClick={() => setRows([...rows, newRow()])}>
            Add condition
          </button>
          <button type="submit">Apply</button>
        </p>
      </form>
      {count ? <CountLine count={count} /> : null}
      {page.isPending ? (
        <Loading what="installations" />
      ) : page.isError ? (
        <ErrorNote error={page.error} />
      ) : page.data.data.length === 0 ? (
        <p role="status">No installation matches.</p>
      ) : (
        <>
          <InstallationTable appId={appId} installations={page.data.data} />
          <p className="inline-form">
            <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous page
            </button>
            <button type="button" disabled={!page.data.meta.next_cursor} onClick={() => setCursors([...cursors, page.data.meta.next_cursor!])}>
              Next page
            </button>
          </p>
        </>
      )}
    </section>
  );
}

function CountLine({ count }: { count: AudienceCount }) {
  return (
    <p role="status" aria-label="Audience count">
      <strong>{count.installations}</strong> installations · {count.sendable} sendable · {count.users} users (iOS {count.platforms.ios}, Android{' '}
      {count.platforms.android}, web {count.platforms.web}, Huawei {count.platforms.huawei})
    </p>
  );
}

function InstallationTable({ appId, installations }: { appId: string; installations: Installation[] }) {
  return (
    <TableScroll label="Installations found">
      <table className="data" aria-label="Installations">
        <thead>
          <tr>
            <th scope="col">Installation</th>
            <th scope="col">Platform</th>
            <th scope="col">Push provider</th>
            <th scope="col">User</th>
            <th scope="col">App version</th>
            <th scope="col">Locale</th>
            <th scope="col">Last seen</th>
            <th scope="col">Properties</th>
          </tr>
        </thead>
        <tbody>
          {installations.map((i) => (
            <tr key={i.id}>
              <td className="mono">
                <Link to={`/apps/${appId}/installations?${new URLSearchParams({ installation_id: i.installation_id })}`}>{i.installation_id}</Link>
              </td>
              <td>{i.platform}</td>
              <td>{PUSH_PROVIDER_LABELS[i.push_provider]}</td>
              <td>{i.user_id === null ? '–' : <Link to={userPath(appId, i.user_id)}>{i.user_id}</Link>}</td>
              <td>{i.device.app_version ?? '–'}</td>
              <td>{i.device.locale ?? '–'}</td>
              <td>
                <Time iso={i.last_seen_at} />
              </td>
              <td>
                {Object.entries(i.properties)
                  .map(([k, v]) => `${k}=${String(v)}`)
                  .join(' · ') || '–'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
