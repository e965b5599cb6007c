// A React Native app on the push notification service (docs/api.md#react-native-sdk): registers the
// device, binds the signed-in user, opens a tapped notification's link, and shows the user's inbox
// live and one topic switch. Firebase here; for Expo see README.md.
import AsyncStorage from '@react-native-async-storage/async-storage';
import messaging from '@react-native-firebase/messaging';
import { useEffect, useState } from 'react';
import { AppState, Button, FlatList, Linking, Platform, SafeAreaView, Switch, Text, View } from 'react-native';
import { PushClient, type InboxMessage } from 'pns-react-native-sdk';

const PUSH_URL = 'https://push.example.com';
// A client token: installations:write, events:write, users:self. Public once in the app.
const PUSH_TOKEN = 'pns_...';

/** Your backend's login answer: the user and the HMAC of their id under the app's identity secret. */
interface Session {
  userId: string;
  pushUserIdHash: string;
}

let started: Promise<PushClient> | undefined;
function startPush(): Promise<PushClient> {
  started ??= PushClient.init({
    baseUrl: PUSH_URL,
    token: PUSH_TOKEN,
    storage: AsyncStorage,
    appState: AppState,
    messaging: messaging(),
    platform: Platform.OS === 'ios' ? 'ios' : 'android',
    device: { appVersion: '1.0.0', osVersion: String(Platform.Version) },
    onOpened: (message) => {
      if (message.actionUrl) void Linking.openURL(message.actionUrl);
    },
  });
  return started;
}

export default function App({ session }: { session: Session }) {
  const [push, setPush] = useState<PushClient | null>(null);
  const [messages, setMessages] = useState<InboxMessage[]>([]);
  const [unread, setUnread] = useState(0);
  const [deals, setDeals] = useState(true);

  // Start once, then act for the signed-in user.
  useEffect(() => {
    let stop = () => {};
    void (async () => {
      const client = await startPush();
      await client.setUser(session.userId, session.pushUserIdHash);
      setPush(client);
      const page = await client.inbox.list({ limit: 20 });
      setMessages(page.data);
      setUnread(page.meta.unread);
      setDeals((await client.preferences.get()).topics.deals?.subscribed ?? true);
      stop = client.inbox.subscribe((event) => {
        if (event.type === 'unread') setUnread(event.unread);
        else setMessages((current) => [event.message, ...current]);
      });
    })();
    return () => stop();
  }, [session.userId, session.pushUserIdHash]);

  return (
    <SafeAreaView style={{ flex: 1, padding: 16 }}>
      <Button title="Turn on notifications" onPress={() => void push?.requestPermission()} disabled={!push} />
      <View style={{ flexDirection: 'row', alignItems: 'center', marginVertical: 12 }}>
        <Text style={{ flex: 1 }}>Deals</Text>
        <Switch
          value={deals}
          onValueChange={(value) => {
            setDeals(value);
            void push?.preferences.update({ topics: { deals: value } });
          }}
        />
      </View>
      <Text accessibilityRole="header">Inbox ({unread > 999 ? '999+' : unread} unread)</Text>
      <FlatList
        data={messages}
        keyExtractor={(message) => message.id}
        renderItem={({ item }) => (
          <Text
            style={{ paddingVertical: 8, fontWeight: item.read_at ? 'normal' : 'bold' }}
            onPress={() => {
              void push?.inbox.markRead(item.id).then((read) => setMessages((all) => all.map((m) => (m.id === read.id ? read : m))));
              if (item.action_url) void Linking.openURL(item.action_url);
            }}
          >
            {item.title} {item.body}
          </Text>
        )}
      />
    </SafeAreaView>
  );
}
