/**
 * The API's 422 errors (keys are request paths, docs/api.md#errors) placed on the composer's
 * fields, in the words of the form: "The title is required.", not "The notification.title field is
 * required.". Each field has an id (the form's element id is `compose-<id>`), a label and the words
 * a sentence uses for it.
 */

export interface FieldName {
  label: string;
  /** Said after the label to a screen reader only, where the label alone repeats ("Title" of each variant). */
  context?: string;
  /** How a sentence names it: "The <words> must …". */
  words: string;
}

/** Every field of the composer a path can land on, by its id. */
export const FIELD_NAMES: Record<string, FieldName> = {
  audience: { label: 'Audience', words: 'audience' },
  template: { label: 'Template', words: 'template' },
  variables: { label: 'Variables (JSON, optional)', words: 'variables' },
  title: { label: 'Title', words: 'title' },
  body: { label: 'Message', words: 'message' },
  image_url: { label: 'Image URL (optional)', words: 'image URL' },
  action_url: { label: 'Link to open (optional)', words: 'link to open' },
  content: { label: 'Content', words: 'notification' },
  data: { label: 'Data for the app (JSON, optional)', words: 'data' },
  send_at: { label: 'Send at (your time zone)', words: 'send time' },
  local_time: { label: 'At each device’s local time', words: 'local time' },
  throttle_per_minute: { label: 'At most per minute', words: 'pace' },
  platforms: { label: 'Platforms', words: 'platform choice' },
  priority: { label: 'Priority', words: 'priority' },
  ttl: { label: 'Time to live (seconds)', words: 'time to live' },
  collapse_id: { label: 'Replace earlier with the same key (collapse id)', words: 'collapse id' },
  category: { label: 'Kind of message', words: 'kind of message' },
  topic: { label: 'Topic', words: 'topic' },
  badge: { label: 'Badge number', words: 'badge number' },
  sound: { label: 'Sound', words: 'sound' },
  'apns.subtitle': { label: 'Subtitle', words: 'iOS subtitle' },
  'apns.interruption_level': { label: 'Interruption level', words: 'iOS interruption level' },
  'apns.relevance_score': { label: 'Relevance score (0 to 1)', words: 'iOS relevance score' },
  'apns.thread_id': { label: 'Thread id', words: 'iOS thread id' },
  'apns.category': { label: 'Category (with its buttons)', words: 'iOS category' },
  'apns.target_content_id': { label: 'Target content id', words: 'iOS target content id' },
  'android.channel_id': { label: 'Channel id', words: 'Android channel id' },
  'android.tag': { label: 'Tag (replaces a shown one)', words: 'Android tag' },
  'android.color': { label: 'Colour (#RRGGBB)', words: 'Android colour' },
  'android.icon': { label: 'Icon', words: 'Android icon' },
  'android.click_action': { label: 'Click action', words: 'Android click action' },
  'android.visibility': { label: 'Visibility on the lock screen', words: 'Android visibility' },
  'android.proxy': { label: 'Proxy', words: 'Android proxy setting' },
  'android.bandwidth_constrained_ok': { label: 'May arrive in bandwidth constrained mode', words: 'Android bandwidth setting' },
  'android.restricted_satellite_ok': { label: 'May arrive over a restricted satellite network', words: 'Android satellite setting' },
  'android.direct_boot_ok': { label: 'Delivered in direct boot mode', words: 'Android direct boot setting' },
  'web.icon': { label: 'Icon URL', words: 'web icon' },
  'web.badge': { label: 'Badge image URL', words: 'web badge image' },
  'web.tag': { label: 'Tag (replaces a shown one)', words: 'web tag' },
  'web.urgency': { label: 'Urgency', words: 'web urgency' },
  'web.require_interaction': { label: 'Stays until clicked', words: 'web “stays until clicked” setting' },
  'web.silent': { label: 'Silent', words: 'web silent setting' },
  'web.renotify': { label: 'Alert again when replacing', words: 'web “alert again” setting' },
  'web.declarative': { label: 'Declarative Web Push (Safari)', words: 'declarative setting' },
  'web.actions': { label: 'Buttons', words: 'buttons' },
  variants: { label: 'Variants', words: 'variants' },
  ab_test: { label: 'A/B test', words: 'A/B test' },
  'ab_test.sample_percent': { label: 'Sample (% of the audience)', words: 'sample percentage' },
  'ab_test.winner_after': { label: 'Pick the winner after', words: 'waiting time before the winner' },
  'ab_test.metric': { label: 'The winner is the variant with the most', words: 'measure of the winner' },
};

/** A variant's fields (`variant.<index>.<part>`), named as the composer's own with "of variant N". */
const VARIANT_PARTS: Record<string, FieldName> = {
  key: { label: 'Name', words: 'name' },
  weight: { label: 'Weight', words: 'weight' },
  template: FIELD_NAMES.template,
  variables: FIELD_NAMES.variables,
  title: FIELD_NAMES.title,
  body: FIELD_NAMES.body,
  image_url: FIELD_NAMES.image_url,
  action_url: FIELD_NAMES.action_url,
};

/** The field of a variant's part (0-based `index`); `variantField(i)` alone is the variant as a whole. */
export const variantField = (index: number, part?: keyof typeof VARIANT_PARTS) => (part ? `variant.${index}.${part}` : `variant.${index}`);

/** The label and words of any field id: the fixed ones above, or a variant's. */
export function fieldName(id: string): FieldName | undefined {
  if (FIELD_NAMES[id]) return FIELD_NAMES[id];
  const match = /^variant\.(\d+)(?:\.(\w+))?$/.exec(id);
  if (!match) return undefined;
  const n = Number(match[1]) + 1;
  if (!match[2]) return { label: `Variant ${n}`, words: `variant ${n}` };
  const part = VARIANT_PARTS[match[2]];
  return part ? { label: part.label, context: `of variant ${n}`, words: `${part.words} of variant ${n}` } : undefined;
}

/** An API path with its list indexes as dots: `variants[1].notification.title` is `variants.1.notification.title`. */
const dotted = (path: string) => path.replace(/\[(\d+)\]/g, '.$1');

/** Which field of variant `index` a path under `variants.<index>` (split, from the part after the index) belongs to. */
function variantFieldOf(index: number, rest: string[]): string {
  const [head, inner] = rest;
  if (head === 'key' || head === 'weight') return variantField(index, head);
  if (head === 'notification' && inner && VARIANT_PARTS[inner] && rest.length === 2) return variantField(index, inner);
  if (head === 'template') return variantField(index, inner === 'variables' ? 'variables' : 'template');
  return variantField(index);
}

/** The field of a condition row of the filter builder (0-based `row`). */
export const conditionField = (row: number) => `condition.${row}`;

/** Which field an API path belongs to; null for none of the form's. */
export function fieldOfPath(path: string, filterRows: number): string | null {
  const parts = dotted(path).split('.');
  if (parts[0] === 'variants') return /^\d+$/.test(parts[1] ?? '') ? variantFieldOf(Number(parts[1]), parts.slice(2)) : 'variants';
  if (parts[0] === 'recipients') {
    if (parts[1] !== 'filter' || filterRows === 0) return 'audience';
    // One condition is the whole filter; several are joined under and/or.
    if (filterRows === 1 && ['field', 'op', 'value'].includes(parts[2] ?? '')) return conditionField(0);
    if ((parts[2] === 'and' || parts[2] === 'or') && /^\d+$/.test(parts[3] ?? '')) return conditionField(Number(parts[3]));
    return 'audience';
  }
  if (parts[0] === 'notification') {
    if (parts.length === 1) return 'content';
    return parts.length === 2 && FIELD_NAMES[parts[1]] ? parts[1] : 'content';
  }
  if (parts[0] === 'data') return 'data';
  if (parts[0] === 'template') return parts[1] === 'variables' ? 'variables' : 'template';
  if (parts[0] === 'send_at') return 'send_at';
  if (parts[0] === 'options' && parts[1]) {
    if ((parts[1] === 'apns' || parts[1] === 'android' || parts[1] === 'web') && parts[2]) {
      const id = `${parts[1]}.${parts[2]}`;
      return FIELD_NAMES[id] ? id : null;
    }
    if (parts[1] === 'badge_increment') return 'badge';
    if (parts[1] === 'ab_test') return parts[2] && FIELD_NAMES[`ab_test.${parts[2]}`] ? `ab_test.${parts[2]}` : 'ab_test';
    return FIELD_NAMES[parts[1]] ? parts[1] : null;
  }
  return null;
}

const FILTER_PART_WORDS: Record<string, string> = { field: 'field', op: 'comparison', value: 'value' };

/** How a sentence names what the path points at: a form field's words, a condition's part, or the path itself. */
function wordsOf(path: string, field: string | null): string {
  // Anything inside a variant's field (a list item, a variable): the field's words are enough.
  if (field?.startsWith('variant.')) return fieldName(field)!.words;
  if (field?.startsWith('condition.')) {
    const row = Number(field.slice('condition.'.length)) + 1;
    const rest = path.split('.').slice(path.includes('.and.') || path.includes('.or.') ? 4 : 2);
    const part = FILTER_PART_WORDS[rest[0]] ?? null;
    const item = rest[1] !== undefined && /^\d+$/.test(rest[1]) ? ` (item ${Number(rest[1]) + 1})` : '';
    return part ? `${part}${item} of condition ${row}` : `condition ${row}`;
  }
  if (field === 'audience' && path.startsWith('recipients.') && path.split('.').length === 3 && /^\d+$/.test(path.split('.')[2])) {
    return `entry ${Number(path.split('.')[2]) + 1} of the audience`;
  }
  if (field === 'content' && path.startsWith('notification.localizations')) return `translation ${path.split('.').slice(2).join(' ')}`;
  if (field && FIELD_NAMES[field] && path.split('.').length <= 3) return FIELD_NAMES[field].words;
  if (field === 'data' && path !== 'data') return `data key “${path.slice('data.'.length)}”`;
  return field && FIELD_NAMES[field] ? FIELD_NAMES[field].words : path;
}

/** The API's message in the form's words: "The <path> field" becomes "The <words>", other mentions of a field's path its words. */
export function inFormWords(path: string, message: string, field: string | null): string {
  if (!field) return message;
  const words = wordsOf(path, field);
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return message
    .replace(/^Exactly one of recipients\..* is required\.$/, 'Choose whom to send to.')
    .replace(new RegExp(`\\b[Tt]he ${escaped} field\\b`, 'g'), `The ${words}`)
    .replace(new RegExp(`\\b${escaped}\\b`, 'g'), words)
    .replace(/\bThe recipients field\b/g, 'The audience');
}

/** The 422's errors by the form's fields, in its words; what fits no field goes above the form. */
export function placeErrors(errors: Record<string, string[]>, filterRows: number): { fields: Record<string, string[]>; other: string[] } {
  const fields: Record<string, string[]> = {};
  const other: string[] = [];
  for (const [path, messages] of Object.entries(errors)) {
    // A send without recipients names recipients.user_ids too: the audience field says it once.
    if (path === 'recipients.user_ids' && errors.recipients) continue;
    const field = fieldOfPath(path, filterRows);
    const words = messages.map((message) => inFormWords(path, message, field));
    if (field) (fields[field] ??= []).push(...words);
    else other.push(...words);
  }
  return { fields, other };
}
