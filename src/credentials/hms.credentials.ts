import { AppCredentials } from './app-credentials.entity';
import { ColumnValues, CredentialsError, OpenFrom, SealFor } from './sealed-columns';

/** Huawei Push Kit (docs/api.md#huawei): the app's id and an OAuth 2.0 client of its project. */

export interface HmsCredentials {
  appId: string;
  clientId: string;
  clientSecret: string;
}

export type HmsCredentialsInput = HmsCredentials;

export interface HmsSummary {
  app_id: string;
  client_id: string;
}

/** Every HMS column, cleared together so no half-set provider is left. */
export const HMS_COLUMNS = ['hms_app_id', 'hms_client_id', 'hms_client_secret_enc'] as const;

/** AppGallery Connect shows numeric ids; secrets are printable ASCII. */
const HMS_ID = /^[A-Za-z0-9._-]{1,64}$/;
const HMS_SECRET = /^[\x21-\x7e]{1,512}$/;

export function hmsColumns(input: HmsCredentialsInput, seal: SealFor): ColumnValues {
  const appId = input.appId.trim();
  const clientId = input.clientId.trim();
  const clientSecret = input.clientSecret.trim();
  if (!HMS_ID.test(appId)) throw new CredentialsError('--hms-app-id must be the app id of AppGallery Connect (1..64 letters, digits, ".", "_" or "-")');
  if (!HMS_ID.test(clientId)) throw new CredentialsError('--hms-client-id must be an OAuth 2.0 client id (1..64 letters, digits, ".", "_" or "-")');
  if (!HMS_SECRET.test(clientSecret)) throw new CredentialsError('--hms-client-secret must be 1..512 printable characters without spaces');
  return {
    values: [
      ['hms_app_id', appId],
      ['hms_client_id', clientId],
      ['hms_client_secret_enc', seal('hms_client_secret_enc', clientSecret)],
    ],
  };
}

export function hmsSummary(row: AppCredentials | null): HmsSummary | null {
  return row?.hmsAppId && row.hmsClientId && row.hmsClientSecretEnc ? { app_id: row.hmsAppId, client_id: row.hmsClientId } : null;
}

export function openHms(row: AppCredentials, open: OpenFrom): HmsCredentials | null {
  if (!(row.hmsAppId && row.hmsClientId && row.hmsClientSecretEnc)) return null;
  return { appId: row.hmsAppId, clientId: row.hmsClientId, clientSecret: open(row.hmsClientSecretEnc, 'hms_client_secret_enc') };
}
