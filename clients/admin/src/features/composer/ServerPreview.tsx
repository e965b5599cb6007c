import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { type PreviewRequest, api } from '../../api';
import { formatNumber } from '../../format';
import { type Draft, sendBodyOf } from './draft';

/**
 * The message each platform would carry, rendered by the server for a chosen installation (its
 * platform, locale and properties) or for every platform the send targets (docs/api.md#preview):
 * the provider's payload, its size against the limit, and why a delivery would skip it.
 */
export function ServerPreview({ appId, draft }: { appId: string; draft: Draft }) {
  const [installation, setInstallation] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const preview = useMutation({ mutationFn: (body: PreviewRequest) => api.preview(appId, body) });
  const run = () => {
    const made = sendBodyOf(draft);
    if ('problems' in made) return setProblem(made.problems.map((p) => p.message).join(' '));
    setProblem(null);
    preview.mutate({ ...made.body, ...(installation.trim() ? { installation_id: installation.trim() } : {}) } as PreviewRequest);
  };
  return (
    <section className="card" aria-labelledby="server-preview-title">
      <h2 id="server-preview-title">As a device receives it</h2>
      <div className="field">
        <label htmlFor="preview-installation">Installation id (optional)</label>
        <input id="preview-installation" value={installation} onChange={(e) => setInstallation(e.target.value)} placeholder="every platform" />
      </div>
      <p>
        <button type="button" className="button secondary" onClick={run} disabled={preview.isPending}>
          {preview.isPending ? 'Rendering…' : 'Preview'}
        </button>
      </p>
      {problem || preview.error ? (
        <p role="alert" className="field-error">
          {problem ?? (preview.error instanceof Error ? preview.error.message : '')}
        </p>
      ) : null}
      {preview.data?.platforms.map((p) => (
        <figure key={`${p.platform}-${p.provider}`} className="payload" aria-label={`Payload for ${p.platform}`}>
          <figcaption>
            <strong>{p.platform}</strong> via {p.provider}
            {p.bytes !== null ? ` · ${formatNumber(p.bytes)} of ${formatNumber(p.limit)} bytes` : ''}
            {p.skip_reason ? ` · skipped: ${p.skip_reason}${p.detail ? ` (${p.detail})` : ''}` : ''}
          </figcaption>
          {p.payload ? <pre className="mono small">{JSON.stringify(p.payload, null, 2)}</pre> : null}
        </figure>
      ))}
    </section>
  );
}
