import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type AuditQuery, api } from '../../api';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { TableScroll } from '../../components/TableScroll';
import { Time } from '../../components/Time';
import { AUDIT_ACTIONS } from '../../vocabulary';

type Filters = { actor: string; action: string; app_id: string; from: string; to: string };
const NONE: Filters = { actor: '', action: '', app_id: '', from: '', to: '' };
/** A date field's day, from its local midnight, as the instant the server takes. */
const instant = (day: string) => (day ? new Date(`${day}T00:00:00`).toISOString() : undefined);
const nextDay = (day: string) => (day ? new Date(new Date(`${day}T00:00:00`).getTime() + 86_400_000).toISOString() : undefined);

/** The audit log (docs/api.md#audit-log), for owners: newest first, filtered by actor, action, app and days. */
export function AuditLogPage() {
  const apps = useQuery({ queryKey: ['apps'], queryFn: api.apps });
  const [draft, setDraft] = useState<Filters>(NONE);
  const [filters, setFilters] = useState<Filters>(NONE);
  const [cursors, setCursors] = useState<string[]>([]);
  const params: AuditQuery = {
    actor: filters.actor || undefined,
    action: (filters.action || undefined) as AuditQuery['action'],
    app_id: filters.app_id || undefined,
    from: instant(filters.from),
    to: nextDay(filters.to),
    cursor: cursors[cursors.length - 1],
    limit: 50,
  };
  const page = useQuery({ queryKey: ['audit-log', params], queryFn: () => api.auditLog(params) });
  const appName = (id: string | null) => (id === null ? '–' : (apps.data?.find((a) => a.id === id)?.name ?? id));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCursors([]);
    setFilters(draft);
  };
  const set = (field: keyof Filters) => (e: { target: { value: string } }) => setDraft({ ...draft, [field]: e.target.value });

  return (
    <Page title="Audit log">
      <form className="card form filters" onSubmit={submit} aria-label="Filter the audit log">
        <div className="field">
          <label htmlFor="audit-who">Who</label>
          <input id="audit-who" type="search" value={draft.actor} onChange={set('actor')} placeholder="e-mail or cli" />
        </div>
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <select id="audit-action" value={draft.action} onChange={set('action')}>
            <option value="">any</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-app">App</label>
          <select id="audit-app" value={draft.app_id} onChange={set('app_id')}>
            <option value="">any</option>
            {apps.data?.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-from">From</label>
          <input id="audit-from" type="date" value={draft.from} onChange={set('from')} />
        </div>
        <div className="field">
          <label htmlFor="audit-to">To</label>
          <input id="audit-to" type="date" value={draft.to} onChange={set('to')} />
        </div>
        <button type="submit">Filter</button>
      </form>
      {page.isPending ? <Loading what="the audit log" /> : null}
      {page.isError ? <ErrorNote error={page.error} /> : null}
      {page.data ? (
        <>
          <TableScroll label="Audit log entries">
            <table className="data">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">App</th>
                  <th scope="col">On</th>
                  <th scope="col">From</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {page.data.data.length === 0 ? (
                  <tr>
                    <td colSpan={7}>No entry matches.</td>
                  </tr>
                ) : null}
                {page.data.data.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <Time iso={e.at} />
                    </td>
                    <td>{e.actor.label}</td>
                    <td>
                      <code>{e.action}</code>
                    </td>
                    <td>{appName(e.app_id)}</td>
                    <td className="break">{e.target ?? '–'}</td>
                    <td>{e.address ?? '–'}</td>
                    <td className="break">
                      <code>{Object.keys(e.details).length ? JSON.stringify(e.details) : ''}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <nav className="pager" aria-label="Pages">
            <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer
            </button>
            <button type="button" disabled={!page.data.meta.next_cursor} onClick={() => setCursors([...cursors, page.data.meta.next_cursor!])}>
              Older
            </button>
          </nav>
        </>
      ) : null}
    </Page>
  );
}
