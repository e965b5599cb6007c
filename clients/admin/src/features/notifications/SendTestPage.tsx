import { useMutation, useQuery } from '@tanstack/react-query';
import { type ChangeEvent, type FormEvent, useState } from 'react';
import { ApiError, type SendRequest, api } from '../../api';
import { Page } from '../../components/Page';
import { navigate } from '../../router';
import { fieldErrors, type SendField } from './sendErrors';

/** Whom a test goes to: the recipients kinds of docs/api.md#recipients a person types by hand. */
type Kind = 'user_id' | 'installation_id' | 'tags' | 'filter';

const RECIPIENT_LABELS: Record<Kind, string> = {
  user_id: 'User id',
  installation_id: 'Installation id',
  tags: 'Tags (separated by commas or spaces)',
  filter: 'Filter (JSON)',
};

/**
 * Send a test: title, body and an optional URL to one user id, one installation id, the
 * installations carrying some tags or an audience filter (docs/api.md#audience-filters), at once, at a
 * time (`send_at`, in the viewer's zone) and/or at each device's local time (`options.local_time`,
 * docs/api.md#scheduling), or as a dry run (`options.dry_run`, docs/api.md#dry-runs), through the same validation and service as POST /api/v1/notifications;
 * its errors are shown next to the fields. On success the notification's page opens and follows it.
 */
export function SendTestPage({ appId }: { appId: string }) {
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  const [kind, setKind] = useState<Kind>('user_id');
  const [badJson, setBadJson] = useState<string | null>(null);
  const [recipient, setRecipient] = useState('');
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [url, setUrl] = useState('');
  const [sendAt, setSendAt] = useState('');
  const [localTime, setLocalTime] = useState('');
  const [dryRun, setDryRun] = useState(false);
  const send = useMutation({
    mutationFn: (request: SendRequest) => api.send(appId, request),
    onSuccess: (notification) => navigate(`/apps/${appId}/notifications/${notification.id}`),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    let recipients: SendRequest['recipients'];
    if (kind === 'filter') {
      // The API's expression as JSON (docs/api.md#audience-filters); the server checks it.
      try {
        recipients = { filter: JSON.parse(recipient) as NonNullable<SendRequest['recipients']['filter']> };
        setBadJson(null);
      } catch {
        setBadJson('The filter must be JSON, e.g. {"field": "platform", "op": "eq", "value": "ios"}.');
        return;
      }
    } else if (kind === 'tags') {
      recipients = { tags: recipient.split(/[\s,]+/).filter(Boolean) };
    } else {
      recipients = kind === 'user_id' ? { user_ids: [recipient] } : { installation_ids: [recipient] };
    }
    send.mutate({
      recipients,
      notification: { title, body, ...(url ? { action_url: url } : {}) },
      // The field's wall-clock time is the viewer's; the API takes an instant.
      ...(sendAt ? { send_at: new Date(sendAt).toISOString() } : {}),
      ...(localTime || dryRun ? { options: { ...(localTime ? { local_time: localTime } : {}), ...(dryRun ? { dry_run: true } : {}) } } : {}),
    });
  };

  const errors = send.error instanceof ApiError ? fieldErrors(send.error.errors) : { fields: {}, other: [] };
  const other = send.error && !(send.error instanceof ApiError && send.error.status === 422) ? [send.error.message] : errors.other;
  const describedBy = (field: SendField) => (errors.fields[field] ? `${field}-error` : undefined);
  // One field, an input or (for a filter's JSON) a textarea.
  const recipientField = {
    id: 'send-recipient',
    value: recipient,
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setRecipient(e.target.value),
    'aria-invalid': !!errors.fields.recipient || badJson !== null,
    'aria-describedby': badJson ? 'recipient-json-error' : describedBy('recipient'),
  };
  const fieldError = (field: SendField) =>
    errors.fields[field] ? (
      <p id={`${field}-error`} className="field-error">
        {errors.fields[field].join(' ')}
      </p>
    ) : null;

  return (
    <Page title={app.data ? `Send a test from ${app.data.name}` : 'Send a test'}>
      <form onSubmit={submit} className="form" noValidate>
        {other.length > 0 ? (
          <div role="alert" className="error">
            {other.join(' ')}
          </div>
        ) : send.error ? (
          <p role="alert" className="error">
            The notification was not sent: see the fields below.
          </p>
        ) : null}
        <fieldset>
          <legend>Send to</legend>
          <label className="choice">
            <input type="radio" name="kind" value="user_id" checked={kind === 'user_id'} onChange={() => setKind('user_id')} /> a user id
          </label>
          <label className="choice">
            <input type="radio" name="kind" value="installation_id" checked={kind === 'installation_id'} onChange={() => setKind('installation_id')} /> an
            installation id
          </label>
          <label className="choice">
            <input type="radio" name="kind" value="tags" checked={kind === 'tags'} onChange={() => setKind('tags')} /> tags
          </label>
          <label className="choice">
            <input type="radio" name="kind" value="filter" checked={kind === 'filter'} onChange={() => setKind('filter')} /> an audience filter
          </label>
        </fieldset>
        <div className="field">
          <label htmlFor="send-recipient">{RECIPIENT_LABELS[kind]}</label>
          {kind === 'filter' ? <textarea {...recipientField} /> : <input {...recipientField} />}
          {badJson ? (
            <p id="recipient-json-error" className="field-error">
              {badJson}
            </p>
          ) : (
            fieldError('recipient')
          )}
        </div>
        <div className="field">
          <label htmlFor="send-title">Title</label>
          <input
            id="send-title"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            aria-invalid={!!errors.fields.title}
            aria-describedby={describedBy('title')}
          />
          {fieldError('title')}
        </div>
        <div className="field">
          <label htmlFor="send-body">Body</label>
          <textarea
            id="send-body"
            rows={3}
            value={body}
            onChange={(e) => setBody(e.target.value)}
            aria-invalid={!!errors.fields.body}
            aria-describedby={describedBy('body')}
          />
          {fieldError('body')}
        </div>
        <div className="field">
          <label htmlFor="send-url">URL to open (optional)</label>
          <input
            id="send-url"
            type="url"
            inputMode="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            aria-invalid={!!errors.fields.url}
            aria-describedby={describedBy('url')}
          />
          {fieldError('url')}
        </div>
        <fieldset>
          <legend>When</legend>
          <p className="muted small">Both empty: at once.</p>
          <div className="field">
            <label htmlFor="send-at">Send at (your time zone, optional)</label>
            <input
              id="send-at"
              type="datetime-local"
              value={sendAt}
              onChange={(e) => setSendAt(e.target.value)}
              aria-invalid={!!errors.fields.send_at}
              aria-describedby={describedBy('send_at')}
            />
            {fieldError('send_at')}
          </div>
          <div className="field">
            <label htmlFor="send-local-time">At each device’s local time (HH:MM, optional)</label>
            <input
              id="send-local-time"
              type="time"
              value={localTime}
              onChange={(e) => setLocalTime(e.target.value)}
              aria-invalid={!!errors.fields.local_time}
              aria-describedby={describedBy('local_time')}
            />
            {fieldError('local_time')}
          </div>
        </fieldset>
        <fieldset>
          <legend>Dry run</legend>
          <label className="choice">
            <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.target.checked)} /> Dry run
          </label>
          <p className="muted small">Everything but the delivery: FCM validates each message, nothing reaches a device.</p>
        </fieldset>
        <button type="submit" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : dryRun ? 'Dry-run' : 'Send'}
        </button>
      </form>
    </Page>
  );
}
