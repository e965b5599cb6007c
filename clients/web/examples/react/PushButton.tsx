// A React component that offers Web Push: the SDK starts in the browser only (in an effect, never
// while rendering on a server), and the permission is asked from the click, as Safari requires.
import { useEffect, useState } from 'react';
import { PushClient } from 'pns-web-sdk';

const OPTIONS = {
  baseUrl: 'https://push.example.com',
  token: 'pns_...', // a client token: installations:write and events:write only
  vapidPublicKey: '<web_push.public_key of apps:credentials>',
  serviceWorkerUrl: '/sw.js',
};

export function PushButton({ userId, userIdHash }: { userId: string | null; userIdHash: string | null }) {
  const [push, setPush] = useState<PushClient | null>(null);
  const [permission, setPermission] = useState<NotificationPermission>('default');

  useEffect(() => {
    if (!PushClient.isSupported()) return;
    let live = true;
    void PushClient.init(OPTIONS).then((client) => {
      if (!live) return;
      setPush(client);
      setPermission(client.permission);
    });
    return () => {
      live = false;
    };
  }, []);

  // The user the page shows, with the hash your back end computed (identity verification).
  useEffect(() => {
    if (push && (userId === null || userIdHash)) void push.setUser(userId, userIdHash ?? undefined);
  }, [push, userId, userIdHash]);

  if (!push || permission === 'denied') return null;
  if (permission === 'granted') return <p>Notifications are on.</p>;
  return (
    <button type="button" onClick={() => void push.subscribe().then(setPermission)}>
      Turn on notifications
    </button>
  );
}
