import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { TableScroll } from '../../components/TableScroll';
import { Time } from '../../components/Time';

/** The signed-in operator's live sessions (docs/api.md#operators); revoking one ends it at once. */
export function SessionsPage() {
  const client = useQueryClient();
  const sessions = useQuery({ queryKey: ['sessions'], queryFn: api.sessions });
  const revoke = useMutation({
    mutationFn: api.revokeSession,
    onSuccess: () => client.invalidateQueries({ queryKey: ['sessions'] }),
  });
  return (
    <Page title="My sessions">
      {sessions.isPending ? <Loading what="your sessions" /> : null}
      {sessions.isError ? <ErrorNote error={sessions.error} /> : null}
      {revoke.error ? <ErrorNote error={revoke.error} /> : null}
      {sessions.data ? (
        <TableScroll label="Sessions">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Opened</th>
                <th scope="col">From</th>
                <th scope="col">Browser</th>
                <th scope="col">How</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Time iso={s.created_at} />
                  </td>
                  <td>{s.address ?? '–'}</td>
                  <td className="break">{s.user_agent ?? '–'}</td>
                  <td>{s.method}</td>
                  <td>
                    <Time iso={s.expires_at} />
                  </td>
                  <td>
                    {s.current ? (
                      'this one'
                    ) : (
                      <button type="button" className="danger" onClick={() => revoke.mutate(s.id)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
    </Page>
  );
}
