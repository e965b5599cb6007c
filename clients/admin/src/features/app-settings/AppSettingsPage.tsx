import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { ApiError, type ApiToken, type CredentialsSummary, type NewApiToken, type NewWebhook, type SettingsChange, api } from '../../api';
import type { components } from '../../api.generated';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { StatusBadge } from '../../components/StatusBadge';
import { TableScroll } from '../../components/TableScroll';
import { Time } from '../../components/Time';
import { PROVIDER_LABELS } from '../../vocabulary';
import { abilityChoices, readFileText, webhookEventChoices } from './choices';

type Schemas = components['schemas'];

/**
 * An app's owner page (docs/api.md#apps-and-credentials-in-the-dashboard): its credentials (uploaded
 * or pasted, checked), API tokens (shown once), webhooks and settings. The server answers no stored
 * secret, so none is ever on this page but what the owner typed or a new token shown once.
 */
export function AppSettingsPage({ appId }: { appId: string }) {
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  return (
    <Page title={app.data ? `Settings of ${app.data.name}` : 'App settings'}>
      <CredentialsSection appId={appId} />
      <TokensSection appId={appId} />
      <WebhooksSection appId={appId} />
      <SettingsSection appId={appId} />
    </Page>
  );
}

/** A refused change: its message, and each field's errors. */
export function Refusal({ error }: { error: unknown }) {
  if (!(error instanceof ApiError) || Object.keys(error.errors).length === 0) return <ErrorNote error={error} />;
  return (
    <div role="alert" className="error">
      <ul className="plain">
        {Object.entries(error.errors).map(([field, messages]) => (
          <li key={field}>
            <span className="mono">{field}</span>: {messages.join(' ')}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Field({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {hint ? <span className="muted small">{hint}</span> : null}
    </div>
  );
}

function CredentialsSection({ appId }: { appId: string }) {
  const client = useQueryClient();
  const summary = useQuery({ queryKey: ['credentials', appId], queryFn: () => api.credentials(appId) });
  const stored = (data: CredentialsSummary) => client.setQueryData(['credentials', appId], data);
  const check = useMutation({ mutationFn: () => api.checkCredentials(appId) });

  return (
    <section aria-labelledby="credentials-title">
      <h2 id="credentials-title">Credentials</h2>
      <p className="muted small">Secrets go to the server sealed and never come back: each provider shows what identifies its credentials.</p>
      {summary.isPending ? <Loading what="credentials" /> : summary.isError ? <ErrorNote error={summary.error} /> : <Stored summary={summary.data} />}
      <div className="actions-row">
        <button type="button" onClick={() => check.mutate()} disabled={check.isPending}>
          {check.isPending ? 'Checking…' : 'Check the credentials'}
        </button>
      </div>
      {check.isError ? <Refusal error={check.error} /> : null}
      {check.data ? (
        <TableScroll label="Credential check">
          <table className="data fits" aria-label="Credential check">
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Answer</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {check.data.map((c) => (
                <tr key={c.provider}>
                  <th scope="row">{c.provider}</th>
                  <td>
                    <StatusBadge status={c.ok ? 'valid' : 'invalid'} />
                  </td>
                  <td className="break">{c.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <div className="forms-grid">
        <ApnsForm appId={appId} onStored={stored} />
        <FcmForm appId={appId} onStored={stored} />
        <WebPushForm appId={appId} onStored={stored} current={summary.data?.web_push ?? null} />
        <HmsForm appId={appId} onStored={stored} />
      </div>
    </section>
  );
}

function Stored({ summary }: { summary: CredentialsSummary }) {
  const { apns, fcm, web_push, hms } = summary;
  const none = <span className="muted">not configured</span>;
  return (
    <ul className="plain stored-credentials">
      <li>
        {PROVIDER_LABELS.apns}: {apns ? `${apns.topic}, key ${apns.key_id}, team ${apns.team_id}, ${apns.production ? 'production' : 'sandbox'}` : none}
      </li>
      <li>
        {PROVIDER_LABELS.fcm}: {fcm ? `project ${fcm.project_id} (${fcm.client_email})` : none}
      </li>
      <li>
        {PROVIDER_LABELS.web_push}: {web_push ? <PublicKey subject={web_push.subject} publicKey={web_push.public_key} /> : none}
      </li>
      <li>
        {PROVIDER_LABELS.hms}: {hms ? `app ${hms.app_id}, client ${hms.client_id}` : none}
      </li>
    </ul>
  );
}

/** The VAPID public key, which the web SDK needs, with a button that copies it. */
function PublicKey({ subject, publicKey }: { subject: string; publicKey: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(publicKey);
    setCopied(true);
  };
  return (
    <>
      {subject}, public key <code className="mono break public-key">{publicKey}</code>{' '}
      <button type="button" className="secondary-button" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy the public key'}
      </button>
    </>
  );
}

type OnStored = (summary: CredentialsSummary) => void;

function useCredentialsForm(appId: string, provider: 'apns' | 'fcm' | 'web-push' | 'hms', onStored: OnStored) {
  const [done, setDone] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: object) => api.putCredentials(appId, provider, body),
    onSuccess: (summary) => {
      onStored(summary);
      setDone('Stored.');
    },
    onMutate: () => setDone(null),
  });
  return { save, done };
}

function ApnsForm({ appId, onStored }: { appId: string; onStored: OnStored }) {
  const { save, done } = useCredentialsForm(appId, 'apns', onStored);
  const [key, setKey] = useState('');
  const [draft, setDraft] = useState({ key_id: '', team_id: '', topic: '', environment: 'production' as 'production' | 'sandbox' });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    // The key leaves the page once stored: the file input and its text are cleared.
    save.mutate({ private_key: key, ...draft }, { onSuccess: () => (form.reset(), setKey('')) });
  };
  return (
    <form className="form card" onSubmit={submit} aria-labelledby="apns-title">
      <h3 id="apns-title">{PROVIDER_LABELS.apns}</h3>
      <Field id="apns-key" label="Auth key (.p8 file)">
        <input id="apns-key" type="file" accept=".p8,text/plain" onChange={(e) => void readFileText(e.target.files?.[0]).then(setKey)} />
      </Field>
      <Field id="apns-key-id" label="Key ID">
        <input id="apns-key-id" value={draft.key_id} onChange={(e) => setDraft({ ...draft, key_id: e.target.value })} />
      </Field>
      <Field id="apns-team-id" label="Team ID">
        <input id="apns-team-id" value={draft.team_id} onChange={(e) => setDraft({ ...draft, team_id: e.target.value })} />
      </Field>
      <Field id="apns-topic" label="Topic (bundle id)">
        <input id="apns-topic" value={draft.topic} onChange={(e) => setDraft({ ...draft, topic: e.target.value })} />
      </Field>
      <Field id="apns-environment" label="Environment">
        <select
          id="apns-environment"
          value={draft.environment}
          onChange={(e) => setDraft({ ...draft, environment: e.target.value as 'production' | 'sandbox' })}
        >
          <option value="production">production</option>
          <option value="sandbox">sandbox</option>
        </select>
      </Field>
      <button type="submit" disabled={save.isPending}>
        Save APNs key
      </button>
      {save.isError ? <Refusal error={save.error} /> : done ? <p role="status">{done}</p> : null}
    </form>
  );
}

function FcmForm({ appId, onStored }: { appId: string; onStored: OnStored }) {
  const { save, done } = useCredentialsForm(appId, 'fcm', onStored);
  const [file, setFile] = useState('');
  const [pasted, setPasted] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    // The file's text is never shown; pasted or uploaded, it leaves the page once stored.
    save.mutate({ service_account: pasted || file }, { onSuccess: () => (form.reset(), setFile(''), setPasted('')) });
  };
  return (
    <form className="form card" onSubmit={submit} aria-labelledby="fcm-title">
      <h3 id="fcm-title">{PROVIDER_LABELS.fcm}</h3>
      <Field id="fcm-file" label="Service account (JSON key file)">
        <input id="fcm-file" type="file" accept=".json,application/json" onChange={(e) => void readFileText(e.target.files?.[0]).then(setFile)} />
      </Field>
      <Field id="fcm-paste" label="or paste it">
        <textarea id="fcm-paste" rows={3} className="mono" value={pasted} onChange={(e) => setPasted(e.target.value)} />
      </Field>
      <button type="submit" disabled={save.isPending}>
        Save service account
      </button>
      {save.isError ? <Refusal error={save.error} /> : done ? <p role="status">{done}</p> : null}
    </form>
  );
}

function WebPushForm({ appId, onStored, current }: { appId: string; onStored: OnStored; current: CredentialsSummary['web_push'] }) {
  const { save, done } = useCredentialsForm(appId, 'web-push', onStored);
  const [subject, setSubject] = useState(current?.subject ?? '');
  const [mode, setMode] = useState<'generate' | 'enter'>('generate');
  const [keys, setKeys] = useState({ public_key: '', private_key: '' });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(mode === 'generate' ? { subject } : { subject, ...keys }, { onSuccess: () => setKeys({ public_key: '', private_key: '' }) });
  };
  return (
    <form className="form card" onSubmit={submit} aria-labelledby="vapid-title">
      <h3 id="vapid-title">{PROVIDER_LABELS.web_push} (VAPID)</h3>
      <Field id="vapid-subject" label="Contact (mailto: or https:)">
        <input id="vapid-subject" value={subject} onChange={(e) => setSubject(e.target.value)} placeholder="mailto:ops@example.com" />
      </Field>
      <fieldset>
        <legend>Keys</legend>
        <label className="choice">
          <input type="radio" name="vapid-mode" checked={mode === 'generate'} onChange={() => setMode('generate')} /> generate a pair (or keep the stored one)
        </label>
        <label className="choice">
          <input type="radio" name="vapid-mode" checked={mode === 'enter'} onChange={() => setMode('enter')} /> enter an existing pair
        </label>
      </fieldset>
      {mode === 'enter' ? (
        <>
          <Field id="vapid-public" label="Public key (base64url)">
            <input id="vapid-public" className="mono" value={keys.public_key} onChange={(e) => setKeys({ ...keys, public_key: e.target.value })} />
          </Field>
          <Field id="vapid-private" label="Private key (base64url)">
            <input
              id="vapid-private"
              type="password"
              autoComplete="off"
              className="mono"
              value={keys.private_key}
              onChange={(e) => setKeys({ ...keys, private_key: e.target.value })}
            />
          </Field>
        </>
      ) : null}
      <button type="submit" disabled={save.isPending}>
        Save VAPID keys
      </button>
      {save.isError ? <Refusal error={save.error} /> : done ? <p role="status">{done}</p> : null}
    </form>
  );
}

function HmsForm({ appId, onStored }: { appId: string; onStored: OnStored }) {
  const { save, done } = useCredentialsForm(appId, 'hms', onStored);
  const [draft, setDraft] = useState({ app_id: '', client_id: '', client_secret: '' });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(draft, { onSuccess: () => setDraft({ ...draft, client_secret: '' }) });
  };
  return (
    <form className="form card" onSubmit={submit} aria-labelledby="hms-title">
      <h3 id="hms-title">{PROVIDER_LABELS.hms}</h3>
      <Field id="hms-app" label="App id">
        <input id="hms-app" value={draft.app_id} onChange={(e) => setDraft({ ...draft, app_id: e.target.value })} />
      </Field>
      <Field id="hms-client" label="Client id">
        <input id="hms-client" value={draft.client_id} onChange={(e) => setDraft({ ...draft, client_id: e.target.value })} />
      </Field>
      <Field id="hms-secret" label="Client secret">
        <input
          id="hms-secret"
          type="password"
          autoComplete="off"
          value={draft.client_secret}
          onChange={(e) => setDraft({ ...draft, client_secret: e.target.value })}
        />
      </Field>
      <button type="submit" disabled={save.isPending}>
        Save Huawei credentials
      </button>
      {save.isError ? <Refusal error={save.error} /> : done ? <p role="status">{done}</p> : null}
    </form>
  );
}

function TokensSection({ appId }: { appId: string }) {
  const client = useQueryClient();
  const tokens = useQuery({ queryKey: ['tokens', appId], queryFn: () => api.tokens(appId) });
  const [name, setName] = useState('');
  const [abilities, setAbilities] = useState<string[]>([]);
  const [days, setDays] = useState('');
  const [shown, setShown] = useState<NewApiToken | null>(null);
  const create = useMutation({
    mutationFn: () =>
      api.createToken(appId, {
        abilities: abilities as Schemas['CreateTokenDto']['abilities'],
        name: name.trim() || null,
        expires_in_days: days ? Number(days) : null,
      }),
    onSuccess: async (token) => {
      setShown(token);
      setName('');
      setAbilities([]);
      setDays('');
      await client.invalidateQueries({ queryKey: ['tokens', appId] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.revokeToken(appId, id),
    onSuccess: () => client.invalidateQueries({ queryKey: ['tokens', appId] }),
  });
  const toggle = (ability: string) => setAbilities(abilities.includes(ability) ? abilities.filter((a) => a !== ability) : [...abilities, ability]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      {shown ? (
        <div role="status" className="notice">
          <p>
            Token <strong>{shown.name ?? shown.id}</strong> made. Copy it now: it is shown only this once.
          </p>
          <code className="mono break new-token">{shown.token}</code>{' '}
          <button type="button" className="secondary-button" onClick={() => void navigator.clipboard.writeText(shown.token)}>
            Copy the token
          </button>{' '}
          <button type="button" className="link-button" onClick={() => setShown(null)}>
            Done
          </button>
        </div>
      ) : null}
      {tokens.isPending ? (
        <Loading what="tokens" />
      ) : tokens.isError ? (
        <ErrorNote error={tokens.error} />
      ) : (
        <TokenTable tokens={tokens.data} revoke={revoke.mutate} />
      )}
      {revoke.isError ? <ErrorNote error={revoke.error} /> : null}
      <form className="form" onSubmit={submit} aria-labelledby="token-form-title">
        <h3 id="token-form-title">New token</h3>
        <Field id="token-name" label="Name (optional)">
          <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={255} />
        </Field>
        <fieldset>
          <legend>Abilities</legend>
          <div className="choices">
            {abilityChoices.map((ability) => (
              <label className="choice" key={ability}>
                <input type="checkbox" checked={abilities.includes(ability)} onChange={() => toggle(ability)} /> <span className="mono">{ability}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <Field id="token-days" label="Expires in days (optional)">
          <input id="token-days" type="number" min={1} max={36500} value={days} onChange={(e) => setDays(e.target.value)} />
        </Field>
        <button type="submit" disabled={create.isPending}>
          Create token
        </button>
        {create.isError ? <Refusal error={create.error} /> : null}
      </form>
    </section>
  );
}

function TokenTable({ tokens, revoke }: { tokens: ApiToken[]; revoke: (id: string) => void }) {
  if (tokens.length === 0) return <p className="muted">No tokens yet.</p>;
  return (
    <TableScroll label="Tokens table">
      <table className="data" aria-label="API tokens">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Abilities</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.id}>
              <th scope="row">
                {t.name ?? <span className="muted">unnamed</span>}
                <div className="muted small mono">{t.id}</div>
              </th>
              <td className="mono small">{t.abilities.join(', ')}</td>
              <td>
                <Time iso={t.created_at} />
              </td>
              <td>
                <Time iso={t.last_used_at} />
              </td>
              <td>
                <Time iso={t.expires_at} />
              </td>
              <td>
                {t.revoked_at ? (
                  <>
                    <StatusBadge status="invalid" /> revoked <Time iso={t.revoked_at} />
                  </>
                ) : (
                  <button type="button" className="danger" onClick={() => revoke(t.id)} aria-label={`Revoke ${t.name ?? t.id}`}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function WebhooksSection({ appId }: { appId: string }) {
  const client = useQueryClient();
  const webhooks = useQuery({ queryKey: ['webhooks', appId], queryFn: () => api.webhooks(appId) });
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [shown, setShown] = useState<NewWebhook | null>(null);
  const create = useMutation({
    mutationFn: () => api.createWebhook(appId, { url, events: events as Schemas['CreateWebhookDto']['events'] }),
    onSuccess: async (webhook) => {
      setShown(webhook);
      setUrl('');
      setEvents([]);
      await client.invalidateQueries({ queryKey: ['webhooks', appId] });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.deleteWebhook(appId, id),
    onSuccess: () => client.invalidateQueries({ queryKey: ['webhooks', appId] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      {shown ? (
        <div role="status" className="notice">
          <p>Webhook made. Its signing secret, shown only this once:</p>
          <code className="mono break">{shown.secret}</code>{' '}
          <button type="button" className="link-button" onClick={() => setShown(null)}>
            Done
          </button>
        </div>
      ) : null}
      {webhooks.isPending ? (
        <Loading what="webhooks" />
      ) : webhooks.isError ? (
        <ErrorNote error={webhooks.error} />
      ) : webhooks.data.length === 0 ? (
        <p className="muted">No webhooks yet.</p>
      ) : (
        <ul className="plain webhooks">
          {webhooks.data.map((w) => (
            <li key={w.id}>
              <span className="mono break">{w.url}</span> <span className="muted small">{w.events.join(', ')}</span>{' '}
              <button type="button" className="danger" onClick={() => remove.mutate(w.id)} aria-label={`Delete webhook ${w.url}`}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {remove.isError ? <ErrorNote error={remove.error} /> : null}
      <form className="form" onSubmit={submit} aria-labelledby="webhook-form-title">
        <h3 id="webhook-form-title">New webhook</h3>
        <Field id="webhook-url" label="URL">
          <input id="webhook-url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/hooks/push" />
        </Field>
        <fieldset>
          <legend>Events</legend>
          <div className="choices">
            {webhookEventChoices.map((type) => (
              <label className="choice" key={type}>
                <input
                  type="checkbox"
                  checked={events.includes(type)}
                  onChange={() => setEvents(events.includes(type) ? events.filter((e) => e !== type) : [...events, type])}
                />{' '}
                <span className="mono">{type}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <button type="submit" disabled={create.isPending}>
          Create webhook
        </button>
        {create.isError ? <Refusal error={create.error} /> : null}
      </form>
    </section>
  );
}

function SettingsSection({ appId }: { appId: string }) {
  const client = useQueryClient();
  const settings = useQuery({ queryKey: ['settings', appId], queryFn: () => api.settings(appId) });
  const save = useMutation({
    mutationFn: (change: SettingsChange) => api.updateSettings(appId, change),
    onSuccess: (app) => {
      client.setQueryData(['settings', appId], app);
      void client.invalidateQueries({ queryKey: ['apps'] });
    },
  });
  return (
    <section aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      {settings.isPending ? (
        <Loading what="settings" />
      ) : settings.isError ? (
        <ErrorNote error={settings.error} />
      ) : (
        <SettingsForm key={JSON.stringify(settings.data.settings)} current={settings.data.settings} save={save.mutate} pending={save.isPending} />
      )}
      {save.isError ? <Refusal error={save.error} /> : save.isSuccess ? <p role="status">Settings saved.</p> : null}
    </section>
  );
}

function SettingsForm({ current, save, pending }: { current: Schemas['AppSettingsDto']; save: (change: SettingsChange) => void; pending: boolean }) {
  const [cap, setCap] = useState({
    on: current.frequency_cap !== null,
    max: String(current.frequency_cap?.max ?? 3),
    hours: String(current.frequency_cap?.hours ?? 24),
  });
  const [quiet, setQuiet] = useState({
    on: current.quiet_hours !== null,
    start: current.quiet_hours?.start ?? '22:00',
    end: current.quiet_hours?.end ?? '07:00',
  });
  const [identity, setIdentity] = useState(current.identity_verification);
  const [inboxDays, setInboxDays] = useState(String(current.inbox_days));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save({
      frequency_cap: cap.on ? { max: Number(cap.max), hours: Number(cap.hours) } : null,
      quiet_hours: quiet.on ? { start: quiet.start, end: quiet.end } : null,
      identity_verification: identity,
      inbox_days: Number(inboxDays),
    });
  };
  return (
    <form className="form" onSubmit={submit} aria-label="App settings">
      <fieldset>
        <legend>Frequency cap (marketing sends)</legend>
        <label className="choice">
          <input type="checkbox" checked={cap.on} onChange={(e) => setCap({ ...cap, on: e.target.checked })} /> on
        </label>
        <div className="inline-fields">
          <Field id="cap-max" label="At most">
            <input id="cap-max" type="number" min={1} max={100} value={cap.max} disabled={!cap.on} onChange={(e) => setCap({ ...cap, max: e.target.value })} />
          </Field>
          <Field id="cap-hours" label="per hours">
            <input
              id="cap-hours"
              type="number"
              min={1}
              max={720}
              value={cap.hours}
              disabled={!cap.on}
              onChange={(e) => setCap({ ...cap, hours: e.target.value })}
            />
          </Field>
        </div>
      </fieldset>
      <fieldset>
        <legend>Quiet hours (device time, marketing sends)</legend>
        <label className="choice">
          <input type="checkbox" checked={quiet.on} onChange={(e) => setQuiet({ ...quiet, on: e.target.checked })} /> on
        </label>
        <div className="inline-fields">
          <Field id="quiet-start" label="From">
            <input id="quiet-start" type="time" value={quiet.start} disabled={!quiet.on} onChange={(e) => setQuiet({ ...quiet, start: e.target.value })} />
          </Field>
          <Field id="quiet-end" label="To">
            <input id="quiet-end" type="time" value={quiet.end} disabled={!quiet.on} onChange={(e) => setQuiet({ ...quiet, end: e.target.value })} />
          </Field>
        </div>
      </fieldset>
      <label className="choice">
        <input type="checkbox" checked={identity} onChange={(e) => setIdentity(e.target.checked)} /> Identity verification (user_id needs user_id_hash)
      </label>
      <Field id="inbox-days" label="Inbox messages kept (days)">
        <input id="inbox-days" type="number" min={1} max={365} value={inboxDays} onChange={(e) => setInboxDays(e.target.value)} />
      </Field>
      <button type="submit" disabled={pending}>
        Save settings
      </button>
    </form>
  );
}
