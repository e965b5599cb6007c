import type { ReactNode } from 'react';
import { fieldName } from './errors';

export interface FieldProps {
  id: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

/** A labelled field with its hint and its errors, the label from errors.ts's names. */
export function Field({ id, errors, hint, children, as }: { id: string; errors?: string[]; hint?: string; children: ReactNode; as?: 'group' }) {
  const name = fieldName(id);
  const label = (
    <>
      {name?.label ?? id}
      {name?.context ? <span className="visually-hidden"> {name.context}</span> : null}
    </>
  );
  const error = errors ? (
    <p id={`compose-${id}-error`} className="field-error">
      {errors.join(' ')}
    </p>
  ) : null;
  if (as === 'group') {
    return (
      <div className="field" role="group" aria-labelledby={`compose-${id}-label`} aria-describedby={errors ? `compose-${id}-error` : undefined}>
        <span id={`compose-${id}-label`} className="label">
          {label}
        </span>
        <div>{children}</div>
        {error}
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={`compose-${id}`}>{label}</label>
      {children}
      {hint ? (
        <p id={`compose-${id}-hint`} className="muted small">
          {hint}
        </p>
      ) : null}
      {error}
    </div>
  );
}
