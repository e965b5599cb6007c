import type { SealedColumn } from './credentials.repository';

/** Bad operator input (unreadable key, incomplete service account...) or an unknown app. */
export class CredentialsError extends Error {}

/** Seals a secret for one of the app's columns (CredentialsService knows the key and the app). */
export type SealFor = (column: SealedColumn, plaintext: string) => string;
/** Opens a secret sealed for one of the app's columns. */
export type OpenFrom = (sealed: string, column: SealedColumn) => string;

/** What one provider's input writes: column -> value, and the columns an existing row keeps. */
export interface ColumnValues {
  values: [string, unknown][];
  keepExisting?: string[];
}
