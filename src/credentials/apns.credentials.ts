import { createPrivateKey, KeyObject } from 'node:crypto';
import { AppCredentials } from './app-credentials.entity';
import { ColumnValues, CredentialsError, OpenFrom, SealFor } from './sealed-columns';

/** Apple key ids and team ids are 10 characters, e.g. `ABC123DEFG`. */
const APPLE_ID = /^[A-Za-z0-9]{10}$/;
/** A bundle id (reverse DNS), possibly with an APNs suffix such as `.voip`. */
const BUNDLE_ID = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

export interface ApnsCredentials {
  keyId: string;
  teamId: string;
  topic: string;
  production: boolean;
  privateKey: string;
}

export interface ApnsCredentialsInput {
  /** Content of the `.p8` file (PKCS#8 PEM of an EC P-256 key). */
  privateKey: string;
  keyId: string;
  teamId: string;
  /** The app's bundle id, sent as `apns-topic`. */
  topic: string;
  production: boolean;
}

export interface ApnsSummary {
  key_id: string;
  team_id: string;
  topic: string;
  production: boolean;
}

/** Every APNs column, cleared together so no half-set provider is left. */
export const APNS_COLUMNS = ['apns_key_id', 'apns_team_id', 'apns_topic', 'apns_production', 'apns_private_key_enc'] as const;

/** Validates the input; the columns it writes, the key sealed. */
export function apnsColumns(input: ApnsCredentialsInput, seal: SealFor): ColumnValues {
  const apns = validateApns(input);
  return {
    values: [
      ['apns_key_id', apns.keyId],
      ['apns_team_id', apns.teamId],
      ['apns_topic', apns.topic],
      ['apns_production', apns.production],
      ['apns_private_key_enc', seal('apns_private_key_enc', apns.privateKey)],
    ],
  };
}

export function apnsSummary(row: AppCredentials | null): ApnsSummary | null {
  return row?.apnsKeyId && row.apnsTeamId && row.apnsTopic && row.apnsPrivateKeyEnc
    ? { key_id: row.apnsKeyId, team_id: row.apnsTeamId, topic: row.apnsTopic, production: row.apnsProduction === true }
    : null;
}

export function openApns(row: AppCredentials, open: OpenFrom): ApnsCredentials | null {
  if (!(row.apnsKeyId && row.apnsTeamId && row.apnsTopic && row.apnsPrivateKeyEnc)) return null;
  return {
    keyId: row.apnsKeyId,
    teamId: row.apnsTeamId,
    topic: row.apnsTopic,
    production: row.apnsProduction === true,
    privateKey: open(row.apnsPrivateKeyEnc, 'apns_private_key_enc'),
  };
}

function validateApns(input: ApnsCredentialsInput): ApnsCredentialsInput {
  const keyId = input.keyId.trim();
  const teamId = input.teamId.trim();
  const topic = input.topic.trim();
  if (!APPLE_ID.test(keyId)) throw new CredentialsError('APNs key id must be the 10-character Key ID shown by Apple (e.g. ABC123DEFG)');
  if (!APPLE_ID.test(teamId)) throw new CredentialsError('APNs team id must be the 10-character Team ID shown by Apple');
  if (!BUNDLE_ID.test(topic) || topic.length > 255) throw new CredentialsError('APNs topic must be the app bundle id, e.g. com.example.app');
  let key: KeyObject;
  try {
    key = createPrivateKey(input.privateKey);
  } catch {
    throw new CredentialsError('APNs key is not a readable private key: expected the .p8 file downloaded from Apple');
  }
  if (!input.privateKey.includes('-----BEGIN PRIVATE KEY-----') || key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new CredentialsError('APNs key must be a PKCS#8 EC P-256 private key (the .p8 file downloaded from Apple)');
  }
  // Re-exported in canonical form: strips stray whitespace or CRLFs that a copied file may carry.
  const privateKey = key.export({ format: 'pem', type: 'pkcs8' }).toString();
  return { privateKey, keyId, teamId, topic, production: input.production };
}
