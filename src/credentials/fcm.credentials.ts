import { createPrivateKey } from 'node:crypto';
import { AppCredentials } from './app-credentials.entity';
import { ColumnValues, CredentialsError, OpenFrom, SealFor } from './sealed-columns';

/** FCM HTTP v1: a Google service account of the Firebase project. */

/** What delivery signs its OAuth assertions with. */
export interface FcmCredentials {
  projectId: string;
  clientEmail: string;
  privateKeyId: string;
  privateKey: string;
}

export interface FcmCredentialsInput {
  /** Content of the service-account JSON key file downloaded from Firebase / Google Cloud. */
  serviceAccount: string;
}

export interface FcmSummary {
  project_id: string;
  client_email: string;
}

interface ServiceAccountFields {
  project_id: string;
  client_email: string;
  private_key_id: string;
  private_key: string;
}

/** Every FCM column, cleared together so no half-set provider is left. */
export const FCM_COLUMNS = ['fcm_project_id', 'fcm_client_email', 'fcm_service_account_enc'] as const;

/** Validates the service account; the columns it writes, the whole file sealed. */
export function fcmColumns(input: FcmCredentialsInput, seal: SealFor): ColumnValues {
  const account = validateServiceAccount(input.serviceAccount);
  return {
    values: [
      ['fcm_project_id', account.project_id],
      ['fcm_client_email', account.client_email],
      ['fcm_service_account_enc', seal('fcm_service_account_enc', input.serviceAccount)],
    ],
  };
}

export function fcmSummary(row: AppCredentials | null): FcmSummary | null {
  return row?.fcmProjectId && row.fcmClientEmail && row.fcmServiceAccountEnc ? { project_id: row.fcmProjectId, client_email: row.fcmClientEmail } : null;
}

export function openFcm(row: AppCredentials, open: OpenFrom): FcmCredentials | null {
  if (!row.fcmServiceAccountEnc) return null;
  const account = JSON.parse(open(row.fcmServiceAccountEnc, 'fcm_service_account_enc')) as ServiceAccountFields;
  return {
    projectId: account.project_id,
    clientEmail: account.client_email,
    privateKeyId: account.private_key_id,
    privateKey: account.private_key,
  };
}

function validateServiceAccount(text: string): ServiceAccountFields {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CredentialsError('FCM service account file is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CredentialsError('FCM service account file must be a JSON object');
  }
  const account = parsed as Record<string, unknown>;
  if (account.type !== 'service_account') {
    throw new CredentialsError('FCM service account file must have "type": "service_account" (Firebase console > Project settings > Service accounts)');
  }
  const missing = ['project_id', 'client_email', 'private_key', 'private_key_id'].filter(
    (field) => typeof account[field] !== 'string' || account[field].trim() === '',
  );
  if (missing.length > 0) throw new CredentialsError(`FCM service account file lacks ${missing.join(', ')}`);
  const fields = account as unknown as ServiceAccountFields;
  if (fields.project_id.length > 255 || fields.client_email.length > 255 || !fields.client_email.includes('@')) {
    throw new CredentialsError('FCM service account file has an invalid project_id or client_email');
  }
  try {
    const key = createPrivateKey(fields.private_key);
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not RSA');
  } catch {
    throw new CredentialsError('FCM service account private_key is not a readable RSA private key');
  }
  return fields;
}
