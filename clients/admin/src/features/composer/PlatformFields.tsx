import type { ReactNode } from 'react';
import type { Draft, PlatformFields, WebButton } from './draft';
import { Field } from './Field';

type Platform = 'apns' | 'android' | 'web';

/** A platform field's control: text, a choice among values, or a yes/no switch (docs/api.md#platform-fields). */
type Control = { kind: 'text'; placeholder?: string; inputMode?: 'decimal' | 'url' } | { kind: 'choice'; values: readonly string[] } | { kind: 'switch' };

const TEXT = { kind: 'text' } as const;
const SWITCH = { kind: 'switch' } as const;

const FIELDS: Record<Platform, [string, Control][]> = {
  apns: [
    ['subtitle', TEXT],
    ['badge', { kind: 'text', placeholder: '1', inputMode: 'decimal' }],
    ['sound', { kind: 'text', placeholder: 'default' }],
    ['interruption_level', { kind: 'choice', values: ['passive', 'active', 'time-sensitive', 'critical'] }],
    ['relevance_score', { kind: 'text', placeholder: '0.8', inputMode: 'decimal' }],
    ['thread_id', TEXT],
    ['category', TEXT],
    ['target_content_id', TEXT],
  ],
  android: [
    ['channel_id', TEXT],
    ['tag', TEXT],
    ['color', { kind: 'text', placeholder: '#FF5722' }],
    ['icon', TEXT],
    ['click_action', TEXT],
    ['visibility', { kind: 'choice', values: ['private', 'public', 'secret'] }],
    ['proxy', { kind: 'choice', values: ['allow', 'deny', 'if_priority_lowered'] }],
    ['bandwidth_constrained_ok', SWITCH],
    ['restricted_satellite_ok', SWITCH],
    ['direct_boot_ok', SWITCH],
  ],
  web: [
    ['icon', { kind: 'text', placeholder: 'https://…', inputMode: 'url' }],
    ['badge', { kind: 'text', placeholder: 'https://…', inputMode: 'url' }],
    ['tag', TEXT],
    ['urgency', { kind: 'choice', values: ['very-low', 'low', 'normal', 'high'] }],
    ['require_interaction', SWITCH],
    ['silent', SWITCH],
    ['renotify', SWITCH],
    ['declarative', SWITCH],
  ],
};

const TITLES: Record<Platform, string> = { apns: 'iOS', android: 'Android', web: 'Web' };

/** The fields only one platform has, each platform folded away until opened; badge and sound are iOS's. */
export function PlatformFieldsSection({ draft, set, errors }: { draft: Draft; set: (patch: Partial<Draft>) => void; errors: Record<string, string[]> }) {
  const control = (platform: Platform, name: string, spec: Control): ReactNode => {
    // badge and sound sit with iOS but are `options.badge` / `options.sound` (errors.ts names them so).
    const id = platform === 'apns' && (name === 'badge' || name === 'sound') ? name : `${platform}.${name}`;
    const fields: PlatformFields = draft[platform];
    const value = fields[name] ?? '';
    const update = (next: string) => set({ [platform]: { ...fields, [name]: next } });
    const props = {
      id: `compose-${id}`,
      'aria-invalid': errors[id] ? true : undefined,
      'aria-describedby': errors[id] ? `compose-${id}-error` : undefined,
    };
    return (
      <Field key={id} id={id} errors={errors[id]}>
        {spec.kind === 'text' ? (
          <input {...props} value={value} placeholder={spec.placeholder} inputMode={spec.inputMode} onChange={(e) => update(e.target.value)} />
        ) : spec.kind === 'choice' ? (
          <select {...props} value={value} onChange={(e) => update(e.target.value)}>
            <option value="">not set</option>
            {spec.values.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        ) : (
          <select {...props} value={value} onChange={(e) => update(e.target.value)}>
            <option value="">not set</option>
            <option value="true">yes</option>
            <option value="false">no</option>
          </select>
        )}
      </Field>
    );
  };
  const opened = (platform: Platform) =>
    Object.keys(errors).some((id) => id.startsWith(`${platform}.`)) || (platform === 'apns' && (!!errors.badge || !!errors.sound));
  return (
    <fieldset className="card">
      <legend>Platform fields</legend>
      <p className="muted small">Each applies to its platform only; the others ignore it.</p>
      {(Object.keys(FIELDS) as Platform[]).map((platform) => (
        <details key={platform} open={opened(platform) || undefined}>
          <summary>{TITLES[platform]}</summary>
          <div className="platform-fields">
            {FIELDS[platform].map(([name, spec]) => control(platform, name, spec))}
            {platform === 'web' ? <WebButtons draft={draft} set={set} errors={errors} /> : null}
          </div>
        </details>
      ))}
    </fieldset>
  );
}

/** One or two buttons shown with a web notification (docs/api.md#web-action-buttons). */
function WebButtons({ draft, set, errors }: { draft: Draft; set: (patch: Partial<Draft>) => void; errors: Record<string, string[]> }) {
  const buttons = draft.webButtons;
  const change = (i: number, patch: Partial<WebButton>) => set({ webButtons: buttons.map((b, j) => (j === i ? { ...b, ...patch } : b)) });
  return (
    <Field id="web.actions" errors={errors['web.actions']} as="group">
      {buttons.map((b, i) => (
        <span key={i} className="inline-form">
          <input aria-label={`Button ${i + 1} id`} placeholder="track" value={b.action} onChange={(e) => change(i, { action: e.target.value })} />
          <input aria-label={`Button ${i + 1} text`} placeholder="Track parcel" value={b.title} onChange={(e) => change(i, { title: e.target.value })} />
          <input aria-label={`Button ${i + 1} link (optional)`} placeholder="https://…" value={b.url} onChange={(e) => change(i, { url: e.target.value })} />
          <button type="button" className="button secondary" onClick={() => set({ webButtons: buttons.filter((_, j) => j !== i) })}>
            Remove button {i + 1}
          </button>
        </span>
      ))}
      {buttons.length < 2 ? (
        <button type="button" className="button secondary" onClick={() => set({ webButtons: [...buttons, { action: '', title: '', url: '' }] })}>
          Add a button
        </button>
      ) : null}
    </Field>
  );
}
