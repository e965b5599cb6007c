import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { ApiError, type AudienceCount, type SendRequest, api } from '../../api';
import { Page } from '../../components/Page';
import { formatNumber } from '../../format';
import { navigate } from '../../router';
import { PLATFORMS, type Platform } from '../../vocabulary';
import { AudienceCountLine, countQuery, countable } from './AudienceCount';
import {
  AUDIENCE_KINDS,
  audienceComplete,
  CONFIRM_ABOVE,
  type Draft,
  emptyDraft,
  isProblem,
  type Recipients,
  recipientsOf,
  sampleOf,
  sendBodyOf,
  variantDraft,
} from './draft';
import { placeErrors } from './errors';
import { Field, type FieldProps } from './Field';
import { FilterBuilder } from './FilterBuilder';
import { PlatformFieldsSection } from './PlatformFields';
import { Preview } from './Preview';
import { ServerPreview } from './ServerPreview';
import { AbTestSection, abTestWords, VariantsEditor } from './Variants';
import { CHOICE_WORDS, KIND_WORDS } from './words';

/** What the send button waits for: the operator to confirm a large audience. */
interface Pending {
  body: Record<string, unknown>;
  count: AudienceCount | null;
}

/**
 * The composer (docs/operations.md "Operator dashboard"): an audience built with controls and its
 * live count, the content, image and data, the schedule and pace, the options and the fields of each
 * platform, a preview, and a confirmation with the audience size before a send to more than 1,000
 * installations. The send goes through the same validation and service as POST /api/v1/notifications;
 * its 422 errors are shown next to their fields in the form's words.
 */
export function ComposerPage({ appId }: { appId: string }) {
  const client = useQueryClient();
  const app = useQuery({ queryKey: ['app', appId], queryFn: () => api.app(appId) });
  const topics = useQuery({ queryKey: ['topics', appId], queryFn: () => api.topics(appId) });
  const templates = useQuery({ queryKey: ['templates', appId], queryFn: () => api.templates(appId) });
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [local, setLocal] = useState<Record<string, string[]>>({});
  const [countErrors, setCountErrors] = useState<Record<string, string[]>>({});
  const [pending, setPending] = useState<Pending | null>(null);
  const [checking, setChecking] = useState(false);
  /** Which variant the previews show. */
  const [shown, setShown] = useState(0);
  const send = useMutation({
    mutationFn: (body: Record<string, unknown>) => api.send(appId, body as SendRequest),
    onSuccess: (notification) => navigate(`/apps/${appId}/notifications/${notification.id}`),
    onSettled: () => setPending(null),
  });
  const set = (patch: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setPending(null);
  };
  const audience = draft.audience;
  const recipients = recipientsOf(audience);
  const countTarget = isProblem(recipients) || !audienceComplete(audience) ? null : recipients;
  // The live count's answer for this audience, read from its cache (never asked from here): the A/B test's sample is a share of it.
  const audienceCount = useQuery({ ...countQuery(appId, countable(countTarget) ? countTarget : { all: true }), enabled: false });
  const installations = countable(countTarget) && audienceCount.data ? audienceCount.data.installations : null;
  const filterRows = audience.kind === 'filter' && audience.json === null ? audience.rows.length : 0;

  const sent = send.error instanceof ApiError && send.error.status === 422 ? placeErrors(send.error.errors, filterRows) : { fields: {}, other: [] };
  const counted = placeErrors(countErrors, filterRows);
  const errors: Record<string, string[]> = { ...counted.fields, ...sent.fields, ...local };
  const other = send.error && !(send.error instanceof ApiError && send.error.status === 422) ? [send.error.message] : sent.other;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    send.reset();
    const made = sendBodyOf(draft);
    if ('problems' in made) {
      const found: Record<string, string[]> = {};
      for (const p of made.problems) (found[p.field] ??= []).push(p.message);
      setLocal(found);
      return;
    }
    setLocal({});
    // The size decides whether to ask: the count of this very audience, fresh or cached.
    const target = made.body.recipients as Recipients;
    // An empty list or no topic: the server says what is missing, next to the field.
    if (!countable(target)) return send.mutate(made.body);
    setChecking(true);
    let count: AudienceCount | null = null;
    try {
      count = await client.fetchQuery(countQuery(appId, target));
    } catch (error) {
      // A refused audience is shown on its fields, and nothing is sent.
      if (error instanceof ApiError && error.status === 422) return setCountErrors(error.errors);
    } finally {
      setChecking(false);
    }
    // Not counted (a timeout): it may be large, so it is asked too.
    if (count !== null && count.installations <= CONFIRM_ABOVE) send.mutate(made.body);
    else setPending({ body: made.body, count });
  };

  const field = (id: string, input: (props: FieldProps) => ReactNode, hint?: string) => (
    <Field id={id} errors={errors[id]} hint={hint}>
      {input({
        id: `compose-${id}`,
        'aria-invalid': errors[id] ? true : undefined,
        'aria-describedby': [errors[id] ? `compose-${id}-error` : null, hint ? `compose-${id}-hint` : null].filter(Boolean).join(' ') || undefined,
      })}
    </Field>
  );
  const text = (id: string, key: keyof Draft, extra: Record<string, unknown> = {}, hint?: string) =>
    field(id, (p) => <input {...p} {...extra} value={draft[key] as string} onChange={(e) => set({ [key]: e.target.value })} />, hint);

  return (
    <Page title={app.data ? `Compose for ${app.data.name}` : 'Compose'}>
      <form onSubmit={(e) => void submit(e)} className="composer" noValidate aria-label="Compose a notification">
        {other.length > 0 ? (
          <div role="alert" className="error">
            {other.join(' ')}
          </div>
        ) : send.error || Object.keys(local).length ? (
          <p role="alert" className="error">
            Nothing was sent: see the fields marked below.
          </p>
        ) : null}

        <div className="composer-main">
          <fieldset className="card" aria-describedby={errors.audience ? 'compose-audience-error' : undefined}>
            <legend>Audience</legend>
            <div className="kinds" role="radiogroup" aria-label="Send to">
              {AUDIENCE_KINDS.map((kind) => (
                <label key={kind} className="choice">
                  <input
                    type="radio"
                    name="audience-kind"
                    value={kind}
                    checked={audience.kind === kind}
                    onChange={() => set({ audience: { ...audience, kind } })}
                  />{' '}
                  {KIND_WORDS[kind]}
                </label>
              ))}
            </div>
            {audience.kind === 'filter' ? (
              <FilterBuilder audience={audience} onChange={(a) => set({ audience: a })} errors={errors} />
            ) : audience.kind === 'topic' ? (
              <div className="field">
                <label htmlFor="compose-audience-topic">Topic</label>
                <select
                  id="compose-audience-topic"
                  value={audience.topic}
                  onChange={(e) => set({ audience: { ...audience, topic: e.target.value } })}
                  aria-invalid={errors.audience ? true : undefined}
                >
                  <option value="">choose a topic…</option>
                  {(topics.data ?? []).map((t) => (
                    <option key={t.key} value={t.key}>
                      {t.name} ({t.key})
                    </option>
                  ))}
                </select>
              </div>
            ) : audience.kind === 'all' ? (
              <p className="muted">Every installation of the app.</p>
            ) : (
              <div className="field">
                <label htmlFor="compose-audience-list">
                  {audience.kind === 'user_ids' ? 'User ids' : audience.kind === 'installation_ids' ? 'Installation ids' : 'Tags'}
                </label>
                <textarea
                  id="compose-audience-list"
                  rows={2}
                  value={audience.list}
                  onChange={(e) => set({ audience: { ...audience, list: e.target.value } })}
                  aria-invalid={errors.audience ? true : undefined}
                  aria-describedby="compose-audience-list-hint"
                />
                <p id="compose-audience-list-hint" className="muted small">
                  {audience.kind === 'tags' ? 'Installations carrying any of these tags (up to 10)' : 'Up to 10,000'}, separated by commas, spaces or lines.
                </p>
              </div>
            )}
            {errors.audience ? (
              <p id="compose-audience-error" className="field-error">
                {errors.audience.join(' ')}
              </p>
            ) : null}
            <AudienceCountLine appId={appId} recipients={countTarget} onErrors={setCountErrors} />
          </fieldset>

          <fieldset className="card">
            <legend>Content</legend>
            {errors.content ? (
              <p id="compose-content-error" className="field-error">
                {errors.content.join(' ')}
              </p>
            ) : null}
            <div className="kinds" role="radiogroup" aria-label="Texts">
              <label className="choice">
                <input type="radio" name="source" checked={draft.source === 'inline'} onChange={() => set({ source: 'inline' })} /> Written here
              </label>
              <label className="choice">
                <input type="radio" name="source" checked={draft.source === 'template'} onChange={() => set({ source: 'template' })} /> From a template
              </label>
              <label className="choice">
                <input type="radio" name="source" checked={draft.source === 'variants'} onChange={() => set({ source: 'variants' })} /> Variants (A/B)
              </label>
            </div>
            {draft.source === 'variants' ? (
              <VariantsEditor draft={draft} set={set} errors={errors} templates={templates.data ?? []} />
            ) : draft.source === 'template' ? (
              <>
                {field('template', (p) => (
                  <select {...p} value={draft.templateKey} onChange={(e) => set({ templateKey: e.target.value })}>
                    <option value="">choose a template…</option>
                    {(templates.data ?? []).map((t) => (
                      <option key={t.key} value={t.key}>
                        {t.name} ({t.key}, version {t.version})
                      </option>
                    ))}
                  </select>
                ))}
                {field(
                  'variables',
                  (p) => (
                    <textarea
                      {...p}
                      rows={3}
                      className="mono"
                      placeholder='{"first_name": "Ann"}'
                      value={draft.variables}
                      onChange={(e) => set({ variables: e.target.value })}
                    />
                  ),
                  'Filled in as {{ vars.name }} in the template’s texts.',
                )}
              </>
            ) : (
              <>
                {text('title', 'title', { maxLength: 256 })}
                {field('body', (p) => (
                  <textarea {...p} rows={3} value={draft.body} onChange={(e) => set({ body: e.target.value })} />
                ))}
                {text(
                  'image_url',
                  'imageUrl',
                  { type: 'url', inputMode: 'url', placeholder: 'https://cdn.example.com/picture.png' },
                  'A public https:// address.',
                )}
                {text('action_url', 'actionUrl', { inputMode: 'url', placeholder: 'https://… or myapp://…' }, 'A web address or an app link.')}
              </>
            )}
            {field(
              'data',
              (p) => (
                <textarea
                  {...p}
                  rows={3}
                  className="mono"
                  placeholder='{"order_id": "42"}'
                  value={draft.data}
                  onChange={(e) => set({ data: e.target.value })}
                />
              ),
              'Handed to the app on the device, not shown.',
            )}
          </fieldset>

          {draft.source === 'variants' ? <AbTestSection draft={draft} set={set} errors={errors} installations={installations} /> : null}

          <fieldset className="card">
            <legend>When</legend>
            <p className="muted small">All empty: at once, as fast as the push services take it.</p>
            {text('send_at', 'sendAt', { type: 'datetime-local' }, 'Up to 30 days ahead.')}
            {text('local_time', 'localTime', { type: 'time' }, 'Each device gets it when its own clock shows this time.')}
            {text('throttle_per_minute', 'throttle', { type: 'number', min: 60, inputMode: 'numeric' }, 'Spread the send: 60 to 1,000,000 a minute.')}
          </fieldset>

          <fieldset className="card">
            <legend>Delivery</legend>
            <Field id="platforms" errors={errors.platforms} as="group">
              {PLATFORMS.map((p) => (
                <label key={p} className="choice">
                  <input
                    type="checkbox"
                    checked={draft.platforms.includes(p)}
                    onChange={(e) => set({ platforms: e.target.checked ? [...draft.platforms, p] : draft.platforms.filter((x: Platform) => x !== p) })}
                  />{' '}
                  {CHOICE_WORDS[p]}
                </label>
              ))}
              <span className="muted small">None ticked: every platform.</span>
            </Field>
            {field('category', (p) => (
              <select {...p} value={draft.category} onChange={(e) => set({ category: e.target.value as Draft['category'] })}>
                <option value="">transactional (the default)</option>
                <option value="marketing">marketing: frequency cap and quiet hours apply</option>
              </select>
            ))}
            {field(
              'topic',
              (p) => (
                <select {...p} value={draft.optionsTopic} onChange={(e) => set({ optionsTopic: e.target.value })}>
                  <option value="">none</option>
                  {(topics.data ?? []).map((t) => (
                    <option key={t.key} value={t.key}>
                      {t.name} ({t.key})
                    </option>
                  ))}
                </select>
              ),
              'Only users subscribed to it receive the send.',
            )}
            {field('priority', (p) => (
              <select {...p} value={draft.priority} onChange={(e) => set({ priority: e.target.value as Draft['priority'] })}>
                <option value="">high (the default)</option>
                <option value="normal">normal: may wait to save battery</option>
              </select>
            ))}
            {text('ttl', 'ttl', { type: 'number', min: 0, inputMode: 'numeric' }, 'How long the push services keep trying an offline device; 0: now or never.')}
            {text('collapse_id', 'collapseId', {}, 'A newer notification with the same key replaces the older one.')}
            <label className="choice">
              <input type="checkbox" checked={draft.dryRun} onChange={(e) => set({ dryRun: e.target.checked })} /> Dry run: everything but the delivery
            </label>
          </fieldset>

          <PlatformFieldsSection draft={draft} set={set} errors={errors} />
        </div>

        <aside className="composer-side" aria-label="Preview">
          <Preview draft={variantDraft(draft, Math.min(shown, draft.variants.length - 1))} appName={app.data?.name ?? 'Your app'}>
            {draft.source === 'variants' ? (
              <div className="kinds variant-shown" role="radiogroup" aria-label="Variant shown">
                {draft.variants.map((v, i) => (
                  <label key={i} className="choice">
                    <input type="radio" name="variant-shown" checked={Math.min(shown, draft.variants.length - 1) === i} onChange={() => setShown(i)} />{' '}
                    {`Variant ${i + 1}${v.key.trim() ? ` (${v.key.trim()})` : ''}`}
                  </label>
                ))}
              </div>
            ) : null}
          </Preview>
          <ServerPreview appId={appId} draft={variantDraft(draft, Math.min(shown, draft.variants.length - 1))} />
        </aside>

        <div className="composer-actions">
          {pending ? (
            <div
              role="alertdialog"
              aria-labelledby="confirm-title"
              aria-describedby={abTest(pending.body) ? 'confirm-text confirm-ab-test' : 'confirm-text'}
              className="confirm card"
            >
              <h2 id="confirm-title">
                {pending.count ? `Send to ${formatNumber(pending.count.installations)} installations?` : 'Send to an audience that could not be counted?'}
              </h2>
              <p id="confirm-text">
                {pending.count
                  ? `This reaches ${formatNumber(pending.count.installations)} installations of ${formatNumber(pending.count.users)} users (${formatNumber(pending.count.sendable)} can receive it). A sent notification cannot be taken back.`
                  : 'The audience could be larger than 1,000 installations. A sent notification cannot be taken back.'}
              </p>
              {abTest(pending.body) ? (
                <p id="confirm-ab-test">
                  {abTestWords(
                    abTest(pending.body)!,
                    pending.count?.installations ?? null,
                    pending.count ? sampleOf(pending.count.installations, abTest(pending.body)!.sample_percent) : null,
                  )}
                </p>
              ) : null}
              <p className="inline-form">
                <button type="button" onClick={() => send.mutate(pending.body)} disabled={send.isPending} autoFocus>
                  {send.isPending ? 'Sending…' : pending.count ? `Send to ${formatNumber(pending.count.installations)} installations` : 'Send anyway'}
                </button>
                <button type="button" className="button secondary" onClick={() => setPending(null)}>
                  Go back
                </button>
              </p>
            </div>
          ) : (
            <button type="submit" disabled={send.isPending || checking}>
              {send.isPending ? 'Sending…' : checking ? 'Counting…' : draft.dryRun ? 'Dry-run' : 'Send'}
            </button>
          )}
        </div>
      </form>
    </Page>
  );
}

/** The body's A/B test (docs/api.md#a-b-test-with-a-winner), if it has one. */
const abTest = (body: Record<string, unknown>) =>
  (body.options as { ab_test?: { sample_percent: number; winner_after: string; metric: string } } | undefined)?.ab_test;
