import { useState } from 'react';
import type { FilterField, FilterOp } from '../../vocabulary';
import {
  CHOICES,
  type Combinator,
  type ConditionRow,
  FIELDS,
  filterOf,
  isTimeField,
  newRow,
  opsOf,
  type PropertyType,
  rowsOf,
  takesDuration,
  takesList,
  takesNoValue,
} from '../installations/conditions';
import type { Audience } from './draft';
import { conditionField } from './errors';
import { CHOICE_WORDS, FIELD_WORDS, OP_WORDS, TAG_OP_WORDS, TIME_OP_WORDS } from './words';

const UNITS = [
  ['m', 'minutes'],
  ['h', 'hours'],
  ['d', 'days'],
] as const;

const opWords = (field: FilterField, op: FilterOp) =>
  (isTimeField(field) ? TIME_OP_WORDS[op] : field === 'tags' ? TAG_OP_WORDS[op] : undefined) ?? OP_WORDS[op];

/** An instant as the viewer's wall-clock time for a datetime-local field; text that is not one as it is. */
function localInput(value: string): string {
  if (!/Z$|[+-]\d{2}:\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) return value;
  const d = new Date(value);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * The audience filter (docs/api.md#audience-filters) built with controls: conditions joined by
 * all/any, each a field, a comparison and a value control that fits them (a choice, a date, a
 * duration, a typed property value). "Edit as JSON" shows the API's expression, for shapes the
 * controls cannot build (nested groups, `not`); it comes back to the controls when it fits them.
 */
export function FilterBuilder({
  audience,
  onChange,
  errors,
}: {
  audience: Audience;
  onChange: (audience: Audience) => void;
  errors: Record<string, string[]>;
}) {
  const [jsonNote, setJsonNote] = useState<string | null>(null);
  const { rows, combinator } = audience;
  const setRows = (next: ConditionRow[]) => onChange({ ...audience, rows: next });
  const change = (index: number, patch: Partial<ConditionRow>) =>
    setRows(
      rows.map((row, i) => {
        if (i !== index) return row;
        const next = { ...row, ...patch };
        // A new field or op may leave the value without meaning: start it again.
        if (patch.field && patch.field !== row.field) return newRow(patch.field);
        if (!opsOf(next.field).includes(next.op)) next.op = opsOf(next.field)[0];
        if (patch.op && takesList(patch.op) !== takesList(row.op)) return { ...next, value: '', values: undefined };
        if (patch.op && takesDuration(patch.op) !== takesDuration(row.op)) return { ...next, value: '' };
        return next;
      }),
    );

  if (audience.json !== null) {
    const back = () => {
      let parsed: unknown;
      try {
        parsed = audience.json!.trim() ? JSON.parse(audience.json!) : null;
      } catch {
        setJsonNote('The JSON does not parse: fix it first, or clear it to start again with the controls.');
        return;
      }
      const fitted = parsed === null ? { rows: [], combinator: 'and' as const } : rowsOf(parsed);
      if (!fitted) {
        setJsonNote('The controls show conditions joined by all or any: this filter (nested groups, “not”) stays as JSON.');
        return;
      }
      setJsonNote(null);
      onChange({ ...audience, ...fitted, json: null });
    };
    return (
      <div className="field">
        <label htmlFor="compose-filter-json">Filter (JSON, docs/api.md#audience-filters)</label>
        <textarea
          id="compose-filter-json"
          rows={8}
          className="mono"
          value={audience.json}
          onChange={(e) => onChange({ ...audience, json: e.target.value })}
          aria-invalid={!!errors.audience}
          aria-describedby={errors.audience ? 'compose-audience-error' : undefined}
        />
        {jsonNote ? (
          <p className="field-error" role="status">
            {jsonNote}
          </p>
        ) : null}
        <p>
          <button type="button" className="button secondary" onClick={back}>
            Use the controls
          </button>
        </p>
      </div>
    );
  }

  return (
    <div className="filter-builder">
      {rows.length > 1 ? (
        <p className="inline-form">
          <label htmlFor="compose-combinator">Match</label>
          <select id="compose-combinator" value={combinator} onChange={(e) => onChange({ ...audience, combinator: e.target.value as Combinator })}>
            <option value="and">all of these conditions</option>
            <option value="or">any of these conditions</option>
          </select>
        </p>
      ) : rows.length === 0 ? (
        <p className="muted small">No condition: every installation of the app.</p>
      ) : null}
      <ol className="conditions">
        {rows.map((row, i) => {
          const n = i + 1;
          const rowErrors = errors[conditionField(i)];
          return (
            <li key={i}>
              <fieldset className="condition" aria-label={`Condition ${n}`} aria-describedby={rowErrors ? `compose-condition-${i}-error` : undefined}>
                <select aria-label={`Field ${n}`} value={row.field} onChange={(e) => change(i, { field: e.target.value as FilterField })}>
                  {FIELDS.map((field) => (
                    <option key={field} value={field}>
                      {FIELD_WORDS[field]}
                    </option>
                  ))}
                </select>
                {row.field === 'properties' ? (
                  <input aria-label={`Property ${n}`} placeholder="property, e.g. plan" value={row.key} onChange={(e) => change(i, { key: e.target.value })} />
                ) : null}
                <select aria-label={`Comparison ${n}`} value={row.op} onChange={(e) => change(i, { op: e.target.value as FilterOp })}>
                  {opsOf(row.field).map((op) => (
                    <option key={op} value={op}>
                      {opWords(row.field, op)}
                    </option>
                  ))}
                </select>
                <ValueControl row={row} n={n} invalid={!!rowErrors} onChange={(patch) => change(i, patch)} />
                <button type="button" className="button secondary" aria-label={`Remove condition ${n}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </fieldset>
              {rowErrors ? (
                <p id={`compose-condition-${i}-error`} className="field-error">
                  {rowErrors.join(' ')}
                </p>
              ) : null}
            </li>
          );
        })}
      </ol>
      <p className="inline-form">
        <button type="button" onClick={() => setRows([...rows, newRow()])}>
          Add condition
        </button>
        <button
          type="button"
          className="button secondary"
          onClick={() => {
            setJsonNote(null);
            const filter = filterOf(rows, combinator);
            onChange({ ...audience, json: filter ? JSON.stringify(filter, null, 2) : '' });
          }}
        >
          Edit as JSON
        </button>
      </p>
      {errors.audience ? null : null}
    </div>
  );
}

/** The value control that fits the row's field and comparison. */
function ValueControl({ row, n, invalid, onChange }: { row: ConditionRow; n: number; invalid: boolean; onChange: (patch: Partial<ConditionRow>) => void }) {
  const label = `Value ${n}`;
  if (takesNoValue(row.op)) return null;
  const choices = CHOICES[row.field];
  if (choices && takesList(row.op)) {
    const ticked = row.values ?? [];
    return (
      <span role="group" aria-label={label} className="choices">
        {choices.map((choice) => (
          <label key={choice} className="choice">
            <input
              type="checkbox"
              checked={ticked.includes(choice)}
              onChange={(e) => onChange({ values: e.target.checked ? [...ticked, choice] : ticked.filter((c) => c !== choice) })}
            />{' '}
            {CHOICE_WORDS[choice] ?? choice}
          </label>
        ))}
      </span>
    );
  }
  if (choices) {
    return (
      <select aria-label={label} value={row.value} aria-invalid={invalid} onChange={(e) => onChange({ value: e.target.value })}>
        <option value="">choose…</option>
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {CHOICE_WORDS[choice] ?? choice}
          </option>
        ))}
      </select>
    );
  }
  if (isTimeField(row.field) && takesDuration(row.op)) {
    const found = /^(\d*)([mhd])?$/.exec(row.value);
    const amount = found?.[1] ?? '';
    const unit = found?.[2] ?? 'd';
    return (
      <span className="duration">
        <input
          aria-label={label}
          type="number"
          min={1}
          max={99999}
          inputMode="numeric"
          value={amount}
          aria-invalid={invalid}
          onChange={(e) => onChange({ value: `${e.target.value}${unit}` })}
        />
        <select aria-label={`Unit ${n}`} value={unit} onChange={(e) => onChange({ value: `${amount}${e.target.value}` })}>
          {UNITS.map(([value, words]) => (
            <option key={value} value={value}>
              {words}
            </option>
          ))}
        </select>
      </span>
    );
  }
  if (isTimeField(row.field)) {
    return (
      <input
        aria-label={label}
        type="datetime-local"
        value={localInput(row.value)}
        aria-invalid={invalid}
        onChange={(e) => onChange({ value: e.target.value })}
      />
    );
  }
  if (row.field === 'properties') {
    const type = row.type ?? 'auto';
    return (
      <>
        <select aria-label={`Type ${n}`} value={type} onChange={(e) => onChange({ type: e.target.value as PropertyType })}>
          <option value="auto">as typed</option>
          <option value="text">text</option>
          <option value="number">number</option>
          <option value="boolean">true or false</option>
        </select>
        {type === 'boolean' && !takesList(row.op) ? (
          <select aria-label={label} value={row.value} aria-invalid={invalid} onChange={(e) => onChange({ value: e.target.value })}>
            <option value="">choose…</option>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : (
          <input
            aria-label={label}
            placeholder={takesList(row.op) ? 'a, b, c' : 'value'}
            inputMode={type === 'number' ? 'decimal' : undefined}
            value={row.value}
            aria-invalid={invalid}
            onChange={(e) => onChange({ value: e.target.value })}
          />
        )}
      </>
    );
  }
  const placeholder = takesList(row.op)
    ? row.field === 'language'
      ? 'fr, de'
      : 'a, b, c'
    : ({ app_version: '4.2', language: 'fr', tags: 'vip', user_id: 'user-1' }[row.field as string] ?? 'value');
  return (
    <input
      aria-label={label}
      placeholder={placeholder}
      inputMode={row.field === 'app_version' ? 'decimal' : undefined}
      value={row.value}
      aria-invalid={invalid}
      onChange={(e) => onChange({ value: e.target.value })}
    />
  );
}
