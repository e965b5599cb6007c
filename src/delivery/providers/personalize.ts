import { hasLiquid, LiquidRenderError, parseLiquid, type ParsedLiquid, renderLiquid, TEXT_FIELDS } from '../../common/liquid';
import type { Platform } from '../../common/platform';
import type { PushContent } from './payloads';

/**
 * Rendering a send's Liquid per installation (docs/api.md#liquid): pure, so the API's preview
 * renders with the very code the worker sends with.
 */

/** What an installation gives a rendering besides the send's variables. */
export interface Recipient {
  user_id: string | null;
  locale: string | null;
  platform: Platform;
  app_version: string | null;
  properties: Record<string, unknown> | null;
}

/** Whether a send's texts need rendering: decided once per notification, so a send without Liquid pays nothing. */
export function needsRendering(content: Pick<PushContent, 'title' | 'body' | 'image_url' | 'action_url' | 'localizations'>): boolean {
  if (TEXT_FIELDS.some((field) => hasLiquid(content[field]))) return true;
  return Object.values(content.localizations ?? {}).some((fields) => TEXT_FIELDS.some((field) => hasLiquid(fields[field])));
}

const PARSED_CACHE_SIZE = 1_000;
const parsed = new Map<string, ParsedLiquid>();

/** A text parsed once per process (the API checked that it parses when it was saved or sent). */
function parsedText(text: string): ParsedLiquid {
  let found = parsed.get(text);
  if (found === undefined) {
    if (parsed.size >= PARSED_CACHE_SIZE) parsed.delete(parsed.keys().next().value!);
    parsed.set(text, (found = parseLiquid(text)));
  }
  return found;
}

/** The variables a text is rendered with: the send's as `vars`, the installation's, nothing else. */
export function scopeFor(variables: Record<string, unknown> | null, recipient: Recipient): Record<string, unknown> {
  const locale = recipient.locale?.trim() || null;
  return {
    vars: variables ?? {},
    properties: recipient.properties ?? {},
    user_id: recipient.user_id,
    locale,
    language: locale ? locale.replace(/_/g, '-').split('-')[0].toLowerCase() : null,
    platform: recipient.platform,
    app_version: recipient.app_version,
  };
}

/** `content` (already localized) with each text rendered for `recipient`; throws LiquidRenderError. */
export function rendered(content: PushContent, variables: Record<string, unknown> | null, recipient: Recipient): PushContent {
  const scope = scopeFor(variables, recipient);
  const render = (text: string | null) => (text !== null && hasLiquid(text) ? renderLiquid(parsedText(text), scope) : text);
  const title = render(content.title);
  const body = render(content.body);
  // A title or body that renders empty is a message a device cannot show.
  if (content.title !== null && !title) throw new LiquidRenderError('the title rendered empty');
  if (content.body !== null && !body) throw new LiquidRenderError('the body rendered empty');
  return {
    ...content,
    title,
    body,
    image_url: render(content.image_url) || null,
    action_url: render(content.action_url) || null,
    localizations: null,
    personalization: undefined,
  };
}
