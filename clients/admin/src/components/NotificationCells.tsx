import { Link } from '../router';
import { Time } from './Time';

/** The first cells of a table row about a notification: its title (none for a silent send), linking to its page, and when it was created. */
export function NotificationCells({ appId, n }: { appId: string; n: { id: string; created_at: string; notification: { title: string | null } } }) {
  return (
    <>
      <th scope="row">
        <Link to={`/apps/${appId}/notifications/${n.id}`}>{n.notification.title ?? 'Silent send'}</Link>
      </th>
      <td>
        <Time iso={n.created_at} />
      </td>
    </>
  );
}
