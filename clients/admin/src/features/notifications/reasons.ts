import { REASON_EXPLANATIONS } from '../../vocabulary';

/** What a send's options say about which platforms it can reach at all, whatever `options.platforms`. */
export interface SendKind {
  options?: { live_activity?: unknown; widgets?: boolean | null } | null;
}

/**
 * A reason in plain words, by the whole reason or its first word (`ENOTFOUND api.push.apple.com`,
 * `HTTP 502`); undefined for a provider's rarer words. PlatformExcluded is told by the send: a Live
 * Activity start and a widget push reach iOS only, with or without `options.platforms`.
 */
export function reasonMeaning(reason: string, send?: SendKind): string | undefined {
  if (reason === 'PlatformExcluded' && send?.options) {
    const { live_activity: liveActivity, widgets } = send.options;
    if (liveActivity) return 'A Live Activity start reaches iOS only, so the other platforms are left out.';
    if (widgets === true) return 'A widget push reaches iOS only, so the other platforms are left out.';
  }
  const explanations: Record<string, string> = REASON_EXPLANATIONS;
  return explanations[reason] ?? explanations[reason.split(' ')[0]];
}
