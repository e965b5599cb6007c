import type { ReactNode } from 'react';
import type { Template } from '../../api';
import { formatNumber } from '../../format';
import { AB_METRICS, type AbTestDraft, type Draft, emptyVariant, MAX_VARIANTS, MIN_VARIANTS, sampleOf, type VariantDraft, WINNER_UNITS } from './draft';
import { variantField } from './errors';
import { Field, type FieldProps } from './Field';

type Errors = Record<string, string[]>;
type Set = (patch: Partial<Draft>) => void;

/** The props of a field's control: its id, and its error and hint tied to it. */
const controlProps = (id: string, errors: Errors, hint?: boolean): FieldProps => ({
  id: `compose-${id}`,
  'aria-invalid': errors[id] ? true : undefined,
  'aria-describedby': [errors[id] ? `compose-${id}-error` : null, hint ? `compose-${id}-hint` : null].filter(Boolean).join(' ') || undefined,
});

function field(id: string, errors: Errors, input: (props: FieldProps) => ReactNode, hint?: string) {
  return (
    <Field id={id} errors={errors[id]} hint={hint}>
      {input(controlProps(id, errors, !!hint))}
    </Field>
  );
}

/** The share of the users a weight gives, of all the variants' weights (weights are relative). */
function shareOf(variants: VariantDraft[], index: number): string | null {
  const weights = variants.map((v) => Number(v.weight));
  if (weights.some((w) => !Number.isInteger(w) || w < 1)) return null;
  const total = weights.reduce((a, b) => a + b, 0);
  return `${Math.round((weights[index] / total) * 100)}% of the users`;
}

/**
 * 2..5 variants (docs/api.md#variants), each with a name, a weight and its own content: texts
 * written here or a template with variables. Each user gets one of them, by weight.
 */
export function VariantsEditor({ draft, set, errors, templates }: { draft: Draft; set: Set; errors: Errors; templates: Template[] }) {
  const variants = draft.variants;
  const change = (i: number, patch: Partial<VariantDraft>) => set({ variants: variants.map((v, j) => (j === i ? { ...v, ...patch } : v)) });
  const add = () => {
    // The next free letter, so a removed "b" is not named twice.
    const taken = new Set(variants.map((v) => v.key));
    let n = 0;
    while (taken.has(emptyVariant(n).key)) n += 1;
    set({ variants: [...variants, emptyVariant(n)] });
  };
  return (
    <div className="variants">
      {errors.variants ? (
        <p id="compose-variants-error" className="field-error">
          {errors.variants.join(' ')}
        </p>
      ) : null}
      <p className="muted small">Each user gets one variant, the same on all their devices; the weights set how many get which.</p>
      {variants.map((v, i) => {
        const id = (part: Parameters<typeof variantField>[1]) => variantField(i, part);
        const whole = variantField(i);
        const text = (part: 'title' | 'image_url' | 'action_url', key: 'title' | 'imageUrl' | 'actionUrl', extra: Record<string, unknown> = {}) =>
          field(id(part), errors, (p) => <input {...p} {...extra} value={v[key]} onChange={(e) => change(i, { [key]: e.target.value })} />);
        return (
          <fieldset key={i} className="variant" aria-describedby={errors[whole] ? `compose-${whole}-error` : undefined}>
            <legend>{`Variant ${i + 1}${v.key.trim() ? `: ${v.key.trim()}` : ''}`}</legend>
            {errors[whole] ? (
              <p id={`compose-${whole}-error`} className="field-error">
                {errors[whole].join(' ')}
              </p>
            ) : null}
            <div className="variant-head">
              {field(
                id('key'),
                errors,
                (p) => (
                  <input {...p} maxLength={16} spellCheck={false} value={v.key} onChange={(e) => change(i, { key: e.target.value })} />
                ),
                'a-z, 0-9 and _; shown in the statistics.',
              )}
              {field(
                id('weight'),
                errors,
                (p) => (
                  <input {...p} type="number" min={1} max={100} inputMode="numeric" value={v.weight} onChange={(e) => change(i, { weight: e.target.value })} />
                ),
                shareOf(variants, i) ?? '1 to 100.',
              )}
            </div>
            <div className="kinds" role="radiogroup" aria-label={`Texts of variant ${i + 1}`}>
              <label className="choice">
                <input type="radio" name={`variant-${i}-source`} checked={v.source === 'inline'} onChange={() => change(i, { source: 'inline' })} /> Written
                here
              </label>
              <label className="choice">
                <input type="radio" name={`variant-${i}-source`} checked={v.source === 'template'} onChange={() => change(i, { source: 'template' })} /> From a
                template
              </label>
            </div>
            {v.source === 'template' ? (
              <>
                {field(id('template'), errors, (p) => (
                  <select {...p} value={v.templateKey} onChange={(e) => change(i, { templateKey: e.target.value })}>
                    <option value="">choose a template…</option>
                    {templates.map((t) => (
                      <option key={t.key} value={t.key}>
                        {t.name} ({t.key}, version {t.version})
                      </option>
                    ))}
                  </select>
                ))}
                {field(
                  id('variables'),
                  errors,
                  (p) => (
                    <textarea
                      {...p}
                      rows={2}
                      className="mono"
                      placeholder='{"first_name": "Ann"}'
                      value={v.variables}
                      onChange={(e) => change(i, { variables: e.target.value })}
                    />
                  ),
                  'Filled in as {{ vars.name }} in the template’s texts.',
                )}
              </>
            ) : (
              <>
                {text('title', 'title', { maxLength: 256 })}
                {field(id('body'), errors, (p) => (
                  <textarea {...p} rows={2} value={v.body} onChange={(e) => change(i, { body: e.target.value })} />
                ))}
                {text('image_url', 'imageUrl', { type: 'url', inputMode: 'url', placeholder: 'https://cdn.example.com/picture.png' })}
                {text('action_url', 'actionUrl', { inputMode: 'url', placeholder: 'https://… or myapp://…' })}
              </>
            )}
            {variants.length > MIN_VARIANTS ? (
              <p>
                <button type="button" className="button secondary" onClick={() => set({ variants: variants.filter((_, j) => j !== i) })}>
                  Remove variant {i + 1}
                </button>
              </p>
            ) : null}
          </fieldset>
        );
      })}
      {variants.length < MAX_VARIANTS ? (
        <p>
          <button type="button" className="button secondary" onClick={add}>
            Add a variant
          </button>
        </p>
      ) : (
        <p className="muted small">Five variants at most.</p>
      )}
    </div>
  );
}

const UNIT_WORDS: Record<AbTestDraft['unit'], string> = { m: 'minutes', h: 'hours' };
const METRIC_WORDS: Record<AbTestDraft['metric'], string> = { opened: 'opens', displayed: 'displays' };

/**
 * The A/B test with a winner (docs/api.md#a-b-test-with-a-winner): a sample of the audience gets the
 * variants first; after the wait, the variant with the most opens (or displays) per accepted message
 * goes to everyone else.
 */
export function AbTestSection({ draft, set, errors, installations }: { draft: Draft; set: Set; errors: Errors; installations: number | null }) {
  const ab = draft.abTest;
  const percent = Number(ab.samplePercent);
  const sample =
    installations !== null && Number.isInteger(percent) && percent >= 1 && percent <= 50
      ? `About ${formatNumber(sampleOf(installations, percent))} of the ${formatNumber(installations)} installations counted.`
      : '1 to 50.';
  const change = (patch: Partial<AbTestDraft>) => set({ abTest: { ...ab, ...patch } });
  return (
    <fieldset className="card" aria-describedby={errors.ab_test ? 'compose-ab_test-error' : undefined}>
      <legend>A/B test</legend>
      <label className="choice">
        <input type="checkbox" checked={ab.on} onChange={(e) => change({ on: e.target.checked })} /> Test on a sample first, then send the winner to the rest
      </label>
      {errors.ab_test ? (
        <p id="compose-ab_test-error" className="field-error">
          {errors.ab_test.join(' ')}
        </p>
      ) : null}
      {ab.on ? (
        <>
          {field(
            'ab_test.sample_percent',
            errors,
            (p) => (
              <input
                {...p}
                type="number"
                min={1}
                max={50}
                inputMode="numeric"
                value={ab.samplePercent}
                onChange={(e) => change({ samplePercent: e.target.value })}
              />
            ),
            `This share of the audience gets the variants first, split by weight. ${sample}`,
          )}
          <Field id="ab_test.winner_after" errors={errors['ab_test.winner_after']} as="group">
            <span className="duration">
              <input
                aria-label="Wait"
                type="number"
                min={1}
                inputMode="numeric"
                value={ab.winnerAfter}
                aria-invalid={errors['ab_test.winner_after'] ? true : undefined}
                onChange={(e) => change({ winnerAfter: e.target.value })}
              />
              <select aria-label="Unit" value={ab.unit} onChange={(e) => change({ unit: e.target.value as AbTestDraft['unit'] })}>
                {WINNER_UNITS.map((u) => (
                  <option key={u} value={u}>
                    {UNIT_WORDS[u]}
                  </option>
                ))}
              </select>
            </span>
            <p className="muted small">5 minutes to 72 hours after the sample is sent.</p>
          </Field>
          {field('ab_test.metric', errors, (p) => (
            <select {...p} value={ab.metric} onChange={(e) => change({ metric: e.target.value as AbTestDraft['metric'] })}>
              {AB_METRICS.map((m) => (
                <option key={m} value={m}>
                  {METRIC_WORDS[m]} per message accepted
                </option>
              ))}
            </select>
          ))}
        </>
      ) : (
        <p className="muted small">Off: everyone in the audience gets a variant at once.</p>
      )}
    </fieldset>
  );
}

/** The A/B test in a sentence, for the confirmation: how many get the sample, when the rest follows. */
export function abTestWords(ab: { sample_percent: number; winner_after: string; metric: string }, installations: number | null, sample: number | null): string {
  const amount = ab.winner_after.slice(0, -1);
  const unit = ab.winner_after.endsWith('h') ? 'hour' : 'minute';
  const wait = `${amount} ${unit}${amount === '1' ? '' : 's'}`;
  const metric = ab.metric === 'displayed' ? 'displays' : 'opens';
  const first =
    sample !== null && installations !== null
      ? `A/B test: about ${formatNumber(sample)} installations (${ab.sample_percent}% of ${formatNumber(installations)}) get the variants first`
      : `A/B test: ${ab.sample_percent}% of the audience gets the variants first`;
  return `${first}; after ${wait}, the variant with the most ${metric} goes to the rest.`;
}
