import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OPS_BY_FIELD } from './audience-filter';
import { PLATFORMS, PUSH_PROVIDER_NAMES } from './platform';
import * as vocabulary from './vocabulary';

/** The dashboard's copy of the vocabulary, which it cannot import from src/; vocabulary-file.spec.ts fails when stale. */
export const DASHBOARD_VOCABULARY = resolve(__dirname, '../../clients/admin/src/vocabulary.ts');

const EXPORTS: Record<string, unknown> = {
  PLATFORMS,
  DELIVERY_STATUSES: vocabulary.DELIVERY_STATUSES,
  NOTIFICATION_STATUSES: vocabulary.NOTIFICATION_STATUSES,
  FINAL_NOTIFICATION_STATUSES: vocabulary.FINAL_NOTIFICATION_STATUSES,
  NOTIFICATION_OUTCOMES: vocabulary.NOTIFICATION_OUTCOMES,
  RECIPIENT_KINDS: vocabulary.RECIPIENT_KINDS,
  SKIP_REASONS: vocabulary.SKIP_REASONS,
  COMMON_REASONS: vocabulary.COMMON_REASONS,
  PROVIDER_IDS: vocabulary.PROVIDER_IDS,
  PROVIDER_OF: vocabulary.PROVIDER_OF,
  PROVIDER_LABELS: vocabulary.PROVIDER_LABELS,
  PUSH_PROVIDER_NAMES,
  PUSH_PROVIDER_LABELS: vocabulary.PUSH_PROVIDER_LABELS,
  PERMISSIONS: vocabulary.PERMISSIONS,
  REASON_EXPLANATIONS: vocabulary.REASON_EXPLANATIONS,
  FILTER_OPS_BY_FIELD: OPS_BY_FIELD,
  OPERATOR_ROLES: vocabulary.OPERATOR_ROLES,
  AUDIT_ACTIONS: vocabulary.AUDIT_ACTIONS,
  OIDC_SIGN_IN_ERRORS: vocabulary.OIDC_SIGN_IN_ERRORS,
};

const TYPES = `export type Platform = (typeof PLATFORMS)[number];
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];
export type ProviderId = (typeof PROVIDER_IDS)[number];
export type PushProviderName = (typeof PUSH_PROVIDER_NAMES)[number];
export type FilterField = keyof typeof FILTER_OPS_BY_FIELD;
export type FilterOp = (typeof FILTER_OPS_BY_FIELD)[FilterField][number];
`;

/** A list or a record of words as TypeScript, in the house's format. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  return `{ ${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${/^[a-z_]\w*$/i.test(key) ? key : `'${key}'`}: ${literal(item)}`)
    .join(', ')} }`;
}

export function dashboardVocabulary(): string {
  const constants = Object.entries(EXPORTS).map(([name, value]) => `export const ${name} = ${literal(value)} as const;`);
  return `// Written by \`npm run vocabulary:sync\` (src/common/vocabulary-file.ts) from src/common/vocabulary.ts; do not edit.\n\n${constants.join('\n')}\n\n${TYPES}`;
}

export const storedDashboardVocabulary = (): string | null => {
  try {
    return readFileSync(DASHBOARD_VOCABULARY, 'utf8');
  } catch {
    return null;
  }
};

if (require.main === module) {
  const text = dashboardVocabulary();
  if (storedDashboardVocabulary() !== text) {
    writeFileSync(DASHBOARD_VOCABULARY, text);
    process.stderr.write('wrote clients/admin/src/vocabulary.ts\n');
  }
}
