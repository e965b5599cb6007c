import { Link } from '../router';
import { Time } from './Time';

/**
 * The first cells of a table row about a notification: its title (none for a silent send), linking
 * to its page, labelled when it was a dry run (nothing reached a device), and when it was created.
 */
export function NotificationCells({
  appId,
  n,
}: {
  appId: string;
  n: { id: string; created_at: string; dry_run?: boolean; notification: { title: string | null } };
}) {
  return (
    <>
      <th scope="row" className="cell-title">
        <Link to={`/apps/${appId}/notifications/${n.id}`}>{n.notification?.title ?? 'Silent send'}</Link>
        {n.dry_run ? (
          <>
            {' '}
            <span className="badge badge-dry-run" title="A dry run: everything but the delivery; no device got it.">
              dry run
            </span>
          </>
        ) : null}
      </th>
      <td className="cell-created">
        <Time iso={n.created_at} />
      </td>
    </>
  );
}
