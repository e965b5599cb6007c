import type { ReactNode } from 'react';
import type { Draft } from './draft';

/**
 * How the notification will look on each platform, from the draft as typed: a sketch of the
 * device's banner (iOS, Android, a browser), not the provider's payload. `children`: what picks the
 * variant shown, for a send with variants.
 */
export function Preview({ draft, appName, children }: { draft: Draft; appName: string; children?: ReactNode }) {
  const title = draft.title || 'Title';
  const body = draft.body || 'Message';
  const image = /^https:\/\/[^\s]+$/.test(draft.imageUrl.trim()) ? draft.imageUrl.trim() : null;
  const shown: readonly string[] = draft.platforms.length ? draft.platforms : ['ios', 'android', 'web'];
  const buttons = draft.webButtons.filter((b) => b.title);
  return (
    <section className="card preview" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      {children}
      {shown.includes('ios') ? (
        <figure className="banner banner-ios" aria-label="On iOS">
          <figcaption className="small muted">iOS</figcaption>
          <div className="banner-head">
            <span className="banner-app">{appName}</span>
            <span className="muted small">now</span>
          </div>
          <strong>{title}</strong>
          {draft.apns.subtitle ? <div className="banner-sub">{draft.apns.subtitle}</div> : null}
          <p>{body}</p>
          {image ? <p className="small muted">with an image: {image}</p> : null}
        </figure>
      ) : null}
      {shown.includes('android') || shown.includes('huawei') ? (
        <figure className="banner banner-android" aria-label="On Android" style={draft.android.color ? { borderLeftColor: draft.android.color } : undefined}>
          <figcaption className="small muted">Android</figcaption>
          <div className="banner-head">
            <span className="banner-app">{appName}</span>
          </div>
          <strong>{title}</strong>
          <p>{body}</p>
          {image ? <p className="small muted">with an image: {image}</p> : null}
        </figure>
      ) : null}
      {shown.includes('web') ? (
        <figure className="banner banner-web" aria-label="In a browser">
          <figcaption className="small muted">Web</figcaption>
          <strong>{title}</strong>
          <p>{body}</p>
          {buttons.length ? (
            <p className="banner-buttons">
              {buttons.map((b, i) => (
                <span key={i} className="badge">
                  {b.title}
                </span>
              ))}
            </p>
          ) : null}
        </figure>
      ) : null}
      {draft.data.trim() ? <p className="small muted">With data for the app (not shown on the device).</p> : null}
    </section>
  );
}
