import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, type Topic, type TopicRequest, api } from '../../api';
import { ErrorNote, Loading, Page } from '../../components/Page';
import { TableScroll } from '../../components/TableScroll';
import { Time } from '../../components/Time';

type Field = 'key' | 'name' | 'description' | 'default';
type Draft = { key: string; name: string; description: string; default: TopicRequest['default'] };
const EMPTY: Draft = { key: '', name: '', description: '', default: 'subscribed' };
const FIELDS: Field[] = ['key', 'name', 'description', 'default'];

/**
 * An app's topics (docs/api.md#topics) with their subscribers, created, edited and deleted through
 * /admin/api as PUT and DELETE /api/v1/topics/{key} do; any operator may (docs/operations.md
 * "Operator dashboard"). A new topic's key must be free: replacing one is the edit button's job.
 */
export function TopicsPage({ appId }: { appId: string }) {
  const client = useQueryClient();
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  const topics = useQuery({ queryKey: ['topics', appId], queryFn: () => api.topics(appId) });
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [taken, setTaken] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  const save = useMutation({
    mutationFn: (d: Draft) => api.putTopic(appId, d.key, { name: d.name, description: d.description.trim() || null, default: d.default }),
    onSuccess: async (topic) => {
      setDone(`Topic ${topic.key} saved.`);
      setEditing(null);
      setDraft(EMPTY);
      await client.invalidateQueries({ queryKey: ['topics', appId] });
    },
  });
  const remove = useMutation({
    mutationFn: (key: string) => api.deleteTopic(appId, key),
    onSuccess: async (_, key) => {
      setDone(`Topic ${key} deleted.`);
      setConfirming(null);
      if (editing === key) cancelEdit();
      await client.invalidateQueries({ queryKey: ['topics', appId] });
    },
  });

  const edit = (topic: Topic) => {
    setEditing(topic.key);
    setDraft({ key: topic.key, name: topic.name, description: topic.description ?? '', default: topic.default });
    setTaken(false);
    setDone(null);
    save.reset();
    document.getElementById('topic-form')?.scrollIntoView?.({ block: 'start' });
  };
  function cancelEdit() {
    setEditing(null);
    setDraft(EMPTY);
    save.reset();
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    const exists = editing === null && topics.data?.some((t) => t.key === draft.key.trim());
    setTaken(!!exists);
    if (!exists) save.mutate({ ...draft, key: draft.key.trim() });
  };

  const errors: Partial<Record<Field, string[]>> = {};
  const other: string[] = [];
  if (save.error instanceof ApiError && save.error.status === 422) {
    for (const [path, messages] of Object.entries(save.error.errors)) {
      if ((FIELDS as string[]).includes(path)) (errors[path as Field] ??= []).push(...messages);
      else other.push(...messages);
    }
  } else if (save.error) other.push(save.error.message);
  if (taken) (errors.key ??= []).push(`A topic with the key ${draft.key.trim()} exists: edit it in the list instead.`);
  const invalid = (field: Field) => ({ 'aria-invalid': !!errors[field], 'aria-describedby': errors[field] ? `topic-${field}-error` : undefined });
  const fieldError = (field: Field) =>
    errors[field] ? (
      <p id={`topic-${field}-error`} className="field-error">
        {errors[field].join(' ')}
      </p>
    ) : null;

  return (
    <Page title={app.data ? `Topics of ${app.data.name}` : 'Topics'}>
      <p className="muted">What the app’s users can subscribe to. Subscribers: the users with an installation that a send to the topic would reach now.</p>
      {done ? (
        <p role="status" className="notice">
          {done}
        </p>
      ) : null}
      {topics.isPending ? (
        <Loading what="topics" />
      ) : topics.isError ? (
        <ErrorNote error={topics.error} />
      ) : topics.data.length === 0 ? (
        <p className="muted">No topic yet.</p>
      ) : (
        <TableScroll label="Topics table">
          <table className="data fits">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Name</th>
                <th scope="col" className="num">
                  Subscribers
                </th>
                <th scope="col">Default</th>
                <th scope="col">Actions</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {topics.data.map((t) => (
                <tr key={t.key}>
                  <th scope="row" className="mono">
                    {t.key}
                  </th>
                  <td>
                    {t.name}
                    {t.description ? <div className="muted small">{t.description}</div> : null}
                  </td>
                  <td className="num">{t.subscribers === null ? <span title="Not counted in time">–</span> : t.subscribers.toLocaleString()}</td>
                  <td>{t.default}</td>
                  <td className="actions">
                    {confirming === t.key ? (
                      <span role="group" aria-label={`Delete ${t.key}?`}>
                        <span className="small">Delete it, and every user’s choice for it? </span>
                        <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate(t.key)}>
                          Delete {t.key}
                        </button>{' '}
                        <button type="button" className="secondary-button" onClick={() => setConfirming(null)}>
                          Keep it
                        </button>
                      </span>
                    ) : (
                      <>
                        <button type="button" className="secondary-button" aria-label={`Edit ${t.key}`} onClick={() => edit(t)}>
                          Edit
                        </button>{' '}
                        <button type="button" className="secondary-button" aria-label={`Delete ${t.key}`} onClick={() => setConfirming(t.key)}>
                          Delete
                        </button>
                      </>
                    )}
                  </td>
                  <td>
                    <Time iso={t.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {remove.error ? <ErrorNote error={remove.error} /> : null}

      <h2 id="topic-form">{editing ? `Edit topic ${editing}` : 'New topic'}</h2>
      <form className="form" onSubmit={submit} aria-labelledby="topic-form" noValidate>
        {other.length ? (
          <p role="alert" className="error">
            {other.join(' ')}
          </p>
        ) : null}
        <div className="field">
          <label htmlFor="topic-key">Key</label>
          <input
            id="topic-key"
            className="mono"
            value={draft.key}
            disabled={editing !== null}
            onChange={(e) => setDraft({ ...draft, key: e.target.value })}
            {...invalid('key')}
          />
          <span className="muted small">1 to 64 of a-z, 0-9, _ and -; it cannot change later.</span>
          {fieldError('key')}
        </div>
        <div className="field">
          <label htmlFor="topic-name">Name</label>
          <input id="topic-name" value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} {...invalid('name')} />
          {fieldError('name')}
        </div>
        <div className="field">
          <label htmlFor="topic-description">Description (optional)</label>
          <textarea
            id="topic-description"
            rows={2}
            value={draft.description}
            onChange={(e) => setDraft({ ...draft, description: e.target.value })}
            {...invalid('description')}
          />
          {fieldError('description')}
        </div>
        <fieldset aria-describedby={errors.default ? 'topic-default-error' : undefined}>
          <legend>A user who never chose is</legend>
          <label className="choice">
            <input type="radio" name="topic-default" checked={draft.default === 'subscribed'} onChange={() => setDraft({ ...draft, default: 'subscribed' })} />{' '}
            subscribed
          </label>
          <label className="choice">
            <input
              type="radio"
              name="topic-default"
              checked={draft.default === 'unsubscribed'}
              onChange={() => setDraft({ ...draft, default: 'unsubscribed' })}
            />{' '}
            unsubscribed
          </label>
          {fieldError('default')}
        </fieldset>
        <div>
          <button type="submit" disabled={save.isPending}>
            {editing ? 'Save changes' : 'Create topic'}
          </button>{' '}
          {editing ? (
            <button type="button" className="secondary-button" onClick={cancelEdit}>
              Cancel
            </button>
          ) : null}
        </div>
      </form>
    </Page>
  );
}
