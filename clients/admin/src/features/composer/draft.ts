import type { Platform } from '../../vocabulary';
import { type Combinator, type ConditionRow, complete, type FilterNode, filterOf } from '../installations/conditions';

/** Whom a send goes to: the recipients kinds of docs/api.md#recipients, `topic` of docs/api.md#topics. */
export const AUDIENCE_KINDS = ['filter', 'user_ids', 'installation_ids', 'tags', 'topic', 'all'] as const;
export type AudienceKind = (typeof AUDIENCE_KINDS)[number];

export interface Audience {
  kind: AudienceKind;
  /** User ids, installation ids or tags as typed: separated by commas, spaces or lines. */
  list: string;
  topic: string;
  rows: ConditionRow[];
  combinator: Combinator;
  /** The filter as JSON while it is edited as JSON; null while it is edited with the controls. */
  json: string | null;
}

/** The fields of one platform's object in `options` (docs/api.md#platform-fields), as typed; '' is left out. */
export type PlatformFields = Record<string, string>;

export interface WebButton {
  action: string;
  title: string;
  url: string;
}

/** What one variant of a send says (docs/api.md#variants): its own texts, or a template with its variables. */
export interface VariantDraft {
  /** 1..16 of a-z, 0-9 and _: the name its statistics and the trace show. */
  key: string;
  /** Relative, 1..100, as typed. */
  weight: string;
  source: 'inline' | 'template';
  title: string;
  body: string;
  imageUrl: string;
  actionUrl: string;
  templateKey: string;
  variables: string;
}

/** How many variants a send has (docs/api.md#variants). */
export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 5;
/** The units `winner_after` is written in (docs/api.md#a-b-test-with-a-winner): minutes or hours. */
export const WINNER_UNITS = ['m', 'h'] as const;
export const AB_METRICS = ['opened', 'displayed'] as const;

/** `options.ab_test` as typed: sent only with variants and when switched on. */
export interface AbTestDraft {
  on: boolean;
  samplePercent: string;
  winnerAfter: string;
  unit: (typeof WINNER_UNITS)[number];
  metric: (typeof AB_METRICS)[number];
}

/** Everything the composer holds, as typed; `sendBodyOf` makes the API's body of it. */
export interface Draft {
  audience: Audience;
  /**
   * Texts written here, a template's (docs/api.md#templates) filled in with `variables` (JSON text),
   * or 2..5 variants, each with its own (docs/api.md#variants).
   */
  source: 'inline' | 'template' | 'variants';
  variants: VariantDraft[];
  abTest: AbTestDraft;
  templateKey: string;
  variables: string;
  title: string;
  body: string;
  imageUrl: string;
  actionUrl: string;
  /** The `data` object as JSON text. */
  data: string;
  sendAt: string;
  localTime: string;
  throttle: string;
  platforms: Platform[];
  priority: '' | 'high' | 'normal';
  ttl: string;
  collapseId: string;
  category: '' | 'transactional' | 'marketing';
  optionsTopic: string;
  dryRun: boolean;
  apns: PlatformFields;
  android: PlatformFields;
  web: PlatformFields;
  webButtons: WebButton[];
}

export const emptyAudience = (): Audience => ({ kind: 'filter', list: '', topic: '', rows: [], combinator: 'and', json: null });

/** A new variant, named after its place: a, b, c… */
export const emptyVariant = (index: number): VariantDraft => ({
  key: String.fromCharCode(97 + index),
  weight: '50',
  source: 'inline',
  title: '',
  body: '',
  imageUrl: '',
  actionUrl: '',
  templateKey: '',
  variables: '',
});

export const emptyDraft = (): Draft => ({
  audience: emptyAudience(),
  source: 'inline',
  variants: [emptyVariant(0), emptyVariant(1)],
  abTest: { on: false, samplePercent: '10', winnerAfter: '4', unit: 'h', metric: 'opened' },
  templateKey: '',
  variables: '',
  title: '',
  body: '',
  imageUrl: '',
  actionUrl: '',
  data: '',
  sendAt: '',
  localTime: '',
  throttle: '',
  platforms: [],
  priority: '',
  ttl: '',
  collapseId: '',
  category: '',
  optionsTopic: '',
  dryRun: false,
  apns: {},
  android: {},
  web: {},
  webButtons: [],
});

export type Recipients =
  { user_ids: string[] } | { installation_ids: string[] } | { tags: string[] } | { topic: string } | { filter: FilterNode } | { all: true };

/** A mistake found before asking the server, on the field it belongs to (the ids of errors.ts). */
export interface LocalProblem {
  field: string;
  message: string;
}

const split = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** The API's `recipients` of the audience: a filter without a condition is everyone. */
export function recipientsOf(audience: Audience): Recipients | LocalProblem {
  switch (audience.kind) {
    case 'user_ids':
    case 'installation_ids':
    case 'tags':
      return { [audience.kind]: split(audience.list) } as Recipients;
    case 'topic':
      return { topic: audience.topic.trim() };
    case 'all':
      return { all: true };
    case 'filter': {
      if (audience.json !== null) {
        try {
          return { filter: JSON.parse(audience.json) as FilterNode };
        } catch {
          return { field: 'audience', message: 'The filter is not valid JSON: check its brackets, commas and quotes.' };
        }
      }
      const filter = filterOf(audience.rows, audience.combinator);
      return filter ? { filter } : { all: true };
    }
  }
}

/** Whether the audience is worth counting: every condition built to the end (a half-typed one is not asked about). */
export const audienceComplete = (audience: Audience) => audience.kind !== 'filter' || audience.json !== null || audience.rows.every(complete);

export const isProblem = (value: object): value is LocalProblem => 'field' in value && 'message' in value;

/** An integer as typed, or the problem with it. */
function integer(text: string, field: string, words: string): number | LocalProblem {
  const value = Number(text.trim());
  return Number.isInteger(value) ? value : { field, message: `The ${words} must be a whole number.` };
}

/** The platform fields as the API takes them: true/false for the switches, numbers for the numeric ones. */
const BOOLEAN_FIELDS = new Set([
  'bandwidth_constrained_ok',
  'restricted_satellite_ok',
  'direct_boot_ok',
  'require_interaction',
  'silent',
  'renotify',
  'declarative',
]);
function platformObject(fields: PlatformFields): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(fields)) {
    if (text === '') continue;
    if (BOOLEAN_FIELDS.has(key)) out[key] = text === 'true';
    else if (key === 'relevance_score') out[key] = Number(text);
    else out[key] = text;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * The body of `POST /api/v1/notifications` (docs/api.md#send) the draft says, or the problems found
 * before asking the server (JSON that does not parse, a number that is not one). Empty fields are
 * left out, so the API's defaults apply.
 */
export function sendBodyOf(draft: Draft): { body: Record<string, unknown> } | { problems: LocalProblem[] } {
  const problems: LocalProblem[] = [];
  const recipients = recipientsOf(draft.audience);
  if (isProblem(recipients)) problems.push(recipients);

  let data: unknown;
  if (draft.data.trim()) {
    try {
      data = JSON.parse(draft.data);
      if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('not an object');
    } catch {
      problems.push({ field: 'data', message: 'The data must be a JSON object, such as {"order_id": "42"}.' });
    }
  }

  const options: Record<string, unknown> = {};
  const number = (text: string, key: string, field: string, words: string) => {
    if (!text.trim()) return;
    const value = integer(text, field, words);
    if (typeof value === 'number') options[key] = value;
    else problems.push(value);
  };
  number(draft.ttl, 'ttl', 'ttl', 'time to live');
  number(draft.throttle, 'throttle_per_minute', 'throttle_per_minute', 'pace');
  if (draft.apns.badge) number(draft.apns.badge, 'badge', 'badge', 'badge');
  if (draft.localTime) options.local_time = draft.localTime;
  if (draft.platforms.length) options.platforms = draft.platforms;
  if (draft.priority) options.priority = draft.priority;
  if (draft.collapseId.trim()) options.collapse_id = draft.collapseId.trim();
  if (draft.apns.sound) options.sound = draft.apns.sound;
  if (draft.category) options.category = draft.category;
  if (draft.optionsTopic) options.topic = draft.optionsTopic;
  if (draft.dryRun) options.dry_run = true;
  const { badge: _badge, sound: _sound, ...apnsFields } = draft.apns;
  const apns = platformObject(apnsFields);
  const android = platformObject(draft.android);
  const web = platformObject(draft.web);
  const buttons = draft.webButtons
    .filter((b) => b.action || b.title || b.url)
    .map((b) => ({ action: b.action.trim(), title: b.title.trim(), ...(b.url.trim() ? { url: b.url.trim() } : {}) }));
  if (apns) options.apns = apns;
  if (android) options.android = android;
  if (web || buttons.length) options.web = { ...web, ...(buttons.length ? { actions: buttons } : {}) };

  let content: Record<string, unknown> = {};
  if (draft.source === 'variants') {
    const variants = draft.variants.map((v, i) => {
      const weight = integer(v.weight, `variant.${i}.weight`, `weight of variant ${i + 1}`);
      if (typeof weight !== 'number') problems.push(weight);
      const made = contentOf(v, `variant.${i}.variables`, `variables of variant ${i + 1}`);
      if (isProblem(made)) problems.push(made);
      return { key: v.key.trim(), weight, ...made };
    });
    content = { variants };
    if (draft.abTest.on) {
      const sample = integer(draft.abTest.samplePercent, 'ab_test.sample_percent', 'sample percentage');
      const after = integer(draft.abTest.winnerAfter, 'ab_test.winner_after', 'waiting time');
      if (typeof sample !== 'number') problems.push(sample);
      if (typeof after !== 'number') problems.push(after);
      else options.ab_test = { sample_percent: sample, winner_after: `${after}${draft.abTest.unit}`, metric: draft.abTest.metric };
    }
  } else {
    const made = contentOf(draft, 'variables', 'variables');
    if (isProblem(made)) problems.push(made);
    else content = made;
  }

  if (problems.length) return { problems };
  return {
    body: {
      recipients,
      ...content,
      ...(data !== undefined ? { data } : {}),
      // The field's wall-clock time is the viewer's; the API takes an instant.
      ...(draft.sendAt ? { send_at: new Date(draft.sendAt).toISOString() } : {}),
      ...(Object.keys(options).length ? { options } : {}),
    },
  };
}

type Content = Pick<VariantDraft, 'title' | 'body' | 'imageUrl' | 'actionUrl' | 'templateKey' | 'variables'> & { source: Draft['source'] };

/** `notification` (the texts written) or `template` (with its variables parsed), or the problem with the variables. */
function contentOf(content: Content, field: string, words: string): { notification: object } | { template: object } | LocalProblem {
  if (content.source !== 'template') return { notification: inline(content) };
  let variables: unknown;
  if (content.variables.trim()) {
    try {
      variables = JSON.parse(content.variables);
      if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) throw new Error('not an object');
    } catch {
      return { field, message: `The ${words} must be a JSON object, such as {"first_name": "Ann"}.` };
    }
  }
  return { template: { key: content.templateKey, ...(variables !== undefined ? { variables } : {}) } };
}

function inline(draft: Content) {
  return {
    title: draft.title,
    body: draft.body,
    ...(draft.imageUrl.trim() ? { image_url: draft.imageUrl.trim() } : {}),
    ...(draft.actionUrl.trim() ? { action_url: draft.actionUrl.trim() } : {}),
  };
}

/**
 * The draft as variant `index` alone would send it: its content in place of the variants, no A/B
 * test. The previews show each variant so.
 */
export function variantDraft(draft: Draft, index: number): Draft {
  const v = draft.variants[index];
  if (draft.source !== 'variants' || !v) return draft;
  const { key: _key, weight: _weight, ...content } = v;
  return { ...draft, ...content, abTest: { ...draft.abTest, on: false } };
}

/** The installations an A/B test sends to first: `sample_percent` of the audience, about (each user's lot decides). */
export const sampleOf = (installations: number, percent: number) => Math.round((installations * percent) / 100);

/** Above this many installations the composer asks to confirm the audience size before sending. */
export const CONFIRM_ABOVE = 1_000;
