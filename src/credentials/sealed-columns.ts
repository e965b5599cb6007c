import type { SealedColumn } from './credentials.repository';

export class CredentialsError extends Error {}

export type SealFor = (column: SealedColumn, plaintext: string) => string;
export type OpenFrom = (sealed: string, column: SealedColumn) => string;

export interface ColumnValues {
  values: [string, unknown][];
  keepExisting?: string[];
}
