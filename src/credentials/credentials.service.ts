import { Injectable } from '@nestjs/common';
import { createECDH, createPrivateKey, createPublicKey, KeyObject } from 'node:crypto';
import webpush from 'web-push';
import { AppsRepository } from '../apps/apps.repository';
import { EnvironmentVariables } from '../config/env';
import { Platform, PLATFORMS } from '../common/platform';
import { isUuid } from '../common/uuid';
import { CredentialsRepository, SEALED_COLUMNS, SealedColumn, UnknownAppError } from './credentials.repository';
import { ProviderCredentials } from './provider-credentials';
import { openWithAny, seal } from './secret-box';

/** Workers ask per batch; credentials change rarely, and `update` invalidates its own process at once. */
const CACHE_TTL_MS = 30_000;
/** Apple key ids and team ids are 10 characters, e.g. `ABC123DEFG`. */
const APPLE_ID = /^[A-Za-z0-9]{10}$/;
/** A bundle id (reverse DNS), possibly with an APNs suffix such as `.voip`. */
const BUNDLE_ID = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Bad operator input (unreadable key, incomplete service account...) or an unknown app. */
export class CredentialsError extends Error {}

export interface ApnsCredentialsInput {
  /** Content of the `.p8` file (PKCS#8 PEM of an EC P-256 key). */
  privateKey: string;
  keyId: string;
  teamId: string;
  /** The app's bundle id, sent as `apns-topic`. */
  topic: string;
  production: boolean;
}

export interface FcmCredentialsInput {
  /** Content of the service-account JSON key file downloaded from Firebase / Google Cloud. */
  serviceAccount: string;
}

export interface VapidCredentialsInput {
  /** `mailto:` or `https:` contact for push services (RFC 8292 `sub`). */
  subject: string;
  /** Both or neither; when neither, the app keeps its existing pair or a new one is generated. */
  publicKey?: string;
  privateKey?: string;
}

/** Only the providers given change; the others keep what they had. */
export interface CredentialsInput {
  apns?: ApnsCredentialsInput;
  fcm?: FcmCredentialsInput;
  vapid?: VapidCredentialsInput;
}

/** JSON-safe, secret-free view (what `apps:credentials` prints). */
export interface CredentialsSummary {
  app_id: string;
  apns: { key_id: string; team_id: string; topic: string; production: boolean } | null;
  fcm: { project_id: string; client_email: string } | null;
  web_push: { subject: string; public_key: string } | null;
}

interface ServiceAccountFields {
  project_id: string;
  client_email: string;
  private_key_id: string;
  private_key: string;
}

/** The providers, as `apps:credentials:remove --provider` names them. */
export const CREDENTIALS_PROVIDERS = ['apns', 'fcm', 'web-push'] as const;
export type CredentialsProvider = (typeof CREDENTIALS_PROVIDERS)[number];

/** Every column of each provider, cleared together so no half-set provider is left. */
const PROVIDER_COLUMNS: Record<CredentialsProvider, readonly string[]> = {
  apns: ['apns_key_id', 'apns_team_id', 'apns_topic', 'apns_production', 'apns_private_key_enc'],
  fcm: ['fcm_project_id', 'fcm_client_email', 'fcm_service_account_enc'],
  'web-push': ['vapid_subject', 'vapid_public_key', 'vapid_private_key_enc'],
};

/** Which part of the summary holds each platform's provider. */
const PROVIDER_OF = { ios: 'apns', android: 'fcm', web: 'web_push' } as const satisfies Record<Platform, keyof CredentialsSummary>;

/** Secrets are sealed for their row and column, so a value moved elsewhere will not open. */
const sealContext = (appId: string, column: string) => `app_credentials:${appId}:${column}`;

/**
 * Stores each app's provider credentials with the secrets sealed under APP_KEY, and hands the
 * decrypted set to delivery workers.
 */
@Injectable()
export class CredentialsService {
  private readonly cache = new Map<string, { expiresAt: number; value: Promise<ProviderCredentials> }>();

  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly apps: AppsRepository,
    private readonly config: EnvironmentVariables,
  ) {}

  /** Validates, seals and upserts the given providers' credentials; returns the new summary. */
  async update(appId: string, input: CredentialsInput): Promise<CredentialsSummary> {
    if (!isUuid(appId)) throw new CredentialsError(`App ${appId} not found`);
    // Column -> value, plus how each column is updated when a row already exists.
    const values = new Map<string, unknown>();
    const keepExisting = new Set<string>();

    if (input.apns) {
      const apns = validateApns(input.apns);
      values.set('apns_key_id', apns.keyId);
      values.set('apns_team_id', apns.teamId);
      values.set('apns_topic', apns.topic);
      values.set('apns_production', apns.production);
      values.set('apns_private_key_enc', seal(apns.privateKey, sealContext(appId, 'apns_private_key_enc'), this.config.APP_KEY));
    }
    if (input.fcm) {
      const account = validateServiceAccount(input.fcm.serviceAccount);
      values.set('fcm_project_id', account.project_id);
      values.set('fcm_client_email', account.client_email);
      values.set('fcm_service_account_enc', seal(input.fcm.serviceAccount, sealContext(appId, 'fcm_service_account_enc'), this.config.APP_KEY));
    }
    if (input.vapid) {
      const vapid = validateVapid(input.vapid);
      values.set('vapid_subject', vapid.subject);
      values.set('vapid_public_key', vapid.publicKey);
      values.set('vapid_private_key_enc', seal(vapid.privateKey, sealContext(appId, 'vapid_private_key_enc'), this.config.APP_KEY));
      // Browsers bind every subscription to the VAPID public key it was made with: replacing an
      // existing pair merely because none was passed would silently break all of them.
      if (vapid.generated) keepExisting.add('vapid_public_key').add('vapid_private_key_enc');
    }

    if (values.size === 0) {
      await this.assertAppExists(appId);
    } else {
      await this.upsert(appId, values, keepExisting);
      this.invalidate(appId);
    }
    return this.summary(appId);
  }

  /**
   * Removes one provider's credentials: the app's installations on that platform are skipped as
   * NoCredentials from then on (workers see it within CACHE_TTL_MS). Returns the new summary.
   */
  async remove(appId: string, provider: CredentialsProvider): Promise<CredentialsSummary> {
    if (!isUuid(appId)) throw new CredentialsError(`App ${appId} not found`);
    await this.assertAppExists(appId);
    await this.credentials.clear(appId, PROVIDER_COLUMNS[provider]);
    this.invalidate(appId);
    return this.summary(appId);
  }

  async summary(appId: string): Promise<CredentialsSummary> {
    const row = isUuid(appId) ? await this.credentials.find(appId) : null;
    return {
      app_id: appId,
      apns:
        row?.apnsKeyId && row.apnsTeamId && row.apnsTopic && row.apnsPrivateKeyEnc
          ? { key_id: row.apnsKeyId, team_id: row.apnsTeamId, topic: row.apnsTopic, production: row.apnsProduction === true }
          : null,
      fcm:
        row?.fcmProjectId && row.fcmClientEmail && row.fcmServiceAccountEnc
          ? { project_id: row.fcmProjectId, client_email: row.fcmClientEmail }
          : null,
      web_push:
        row?.vapidSubject && row.vapidPublicKey && row.vapidPrivateKeyEnc
          ? { subject: row.vapidSubject, public_key: row.vapidPublicKey }
          : null,
    };
  }

  /**
   * The platforms the app has credentials for, where its sends can go (the others are skipped as
   * NoCredentials). Nothing is decrypted: the API asks this to size a send (docs/api.md 5.1).
   */
  async platforms(appId: string): Promise<Platform[]> {
    const summary = await this.summary(appId);
    return PLATFORMS.filter((platform) => summary[PROVIDER_OF[platform]] !== null);
  }

  /**
   * Decrypted credentials for delivery, cached per process for about 30 seconds: workers call this
   * once per batch, and another process's `update` is picked up within that time.
   */
  forDelivery(appId: string): Promise<ProviderCredentials> {
    const now = Date.now();
    const cached = this.cache.get(appId);
    if (cached && cached.expiresAt > now) return cached.value;
    const value = this.load(appId);
    this.cache.set(appId, { expiresAt: now + CACHE_TTL_MS, value });
    // A failed load (database down, wrong APP_KEY) must not be served from the cache.
    value.catch(() => {
      if (this.cache.get(appId)?.value === value) this.cache.delete(appId);
    });
    return value;
  }

  invalidate(appId: string): void {
    this.cache.delete(appId);
  }

  private async load(appId: string): Promise<ProviderCredentials> {
    const row = isUuid(appId) ? await this.credentials.find(appId) : null;
    const credentials: ProviderCredentials = { appId, apns: null, fcm: null, vapid: null };
    if (!row) return credentials;
    if (row.apnsKeyId && row.apnsTeamId && row.apnsTopic && row.apnsPrivateKeyEnc) {
      credentials.apns = {
        keyId: row.apnsKeyId,
        teamId: row.apnsTeamId,
        topic: row.apnsTopic,
        production: row.apnsProduction === true,
        privateKey: this.open(row.apnsPrivateKeyEnc, appId, 'apns_private_key_enc'),
      };
    }
    if (row.fcmServiceAccountEnc) {
      const account = JSON.parse(this.open(row.fcmServiceAccountEnc, appId, 'fcm_service_account_enc')) as ServiceAccountFields;
      credentials.fcm = {
        projectId: account.project_id,
        clientEmail: account.client_email,
        privateKeyId: account.private_key_id,
        privateKey: account.private_key,
      };
    }
    if (row.vapidSubject && row.vapidPublicKey && row.vapidPrivateKeyEnc) {
      credentials.vapid = {
        subject: row.vapidSubject,
        publicKey: row.vapidPublicKey,
        privateKey: this.open(row.vapidPrivateKeyEnc, appId, 'vapid_private_key_enc'),
      };
    }
    return credentials;
  }

  /** APP_KEY, then APP_KEY_PREVIOUS while a rotation is under way. */
  private get keys(): string[] {
    return this.config.APP_KEY_PREVIOUS ? [this.config.APP_KEY, this.config.APP_KEY_PREVIOUS] : [this.config.APP_KEY];
  }

  private open(sealed: string, appId: string, column: SealedColumn): string {
    return openWithAny(sealed, sealContext(appId, column), this.keys).plaintext;
  }

  /**
   * Re-seals under APP_KEY every secret that opens only under APP_KEY_PREVIOUS, in one
   * transaction (docs/operations.md "Rotating APP_KEY"). Idempotent: a secret already under
   * APP_KEY is left alone. A secret that opens under neither key stops it, and nothing changes.
   */
  async rotateAppKey(): Promise<{ apps: number; secrets: number; resealed: number; already_current: number }> {
    const totals = { apps: 0, secrets: 0, resealed: 0, already_current: 0 };
    await this.credentials.resealAll((row) => {
      totals.apps++;
      const changed = new Map<SealedColumn, string>();
      for (const column of SEALED_COLUMNS) {
        const sealed = row[column];
        if (sealed === null) continue;
        totals.secrets++;
        let opened: { plaintext: string; index: number };
        try {
          opened = openWithAny(sealed, sealContext(row.app_id, column), this.keys);
        } catch {
          throw new CredentialsError(
            `The ${column} of app ${row.app_id} opens under neither APP_KEY nor APP_KEY_PREVIOUS; nothing was changed`,
          );
        }
        if (opened.index === 0) {
          totals.already_current++;
        } else {
          changed.set(column, seal(opened.plaintext, sealContext(row.app_id, column), this.config.APP_KEY));
          totals.resealed++;
        }
      }
      return changed;
    });
    this.cache.clear();
    return totals;
  }

  private async upsert(appId: string, values: Map<string, unknown>, keepExisting: Set<string>): Promise<void> {
    try {
      await this.credentials.upsert(appId, values, keepExisting);
    } catch (error) {
      if (error instanceof UnknownAppError) throw new CredentialsError(`App ${appId} not found`);
      throw error;
    }
  }

  private async assertAppExists(appId: string): Promise<void> {
    if (!(await this.apps.exists(appId))) throw new CredentialsError(`App ${appId} not found`);
  }
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

function validateVapid(input: VapidCredentialsInput): { subject: string; publicKey: string; privateKey: string; generated: boolean } {
  const subject = input.subject.trim();
  if (!/^mailto:[^@\s]+@[^@\s]+$/.test(subject) && !/^https:\/\/[^\s/]+/.test(subject)) {
    throw new CredentialsError('VAPID subject must be a mailto: address or an https: URL');
  }
  if (subject.length > 255) throw new CredentialsError('VAPID subject must be at most 255 characters');
  if ((input.publicKey === undefined) !== (input.privateKey === undefined)) {
    throw new CredentialsError('VAPID public and private keys go together: give both or neither');
  }
  if (input.publicKey === undefined || input.privateKey === undefined) {
    return { subject, ...webpush.generateVAPIDKeys(), generated: true };
  }
  const publicKey = input.publicKey.trim();
  const privateKey = input.privateKey.trim();
  assertVapidPair(publicKey, privateKey);
  return { subject, publicKey, privateKey, generated: false };
}

/** A P-256 pair in base64url, as web-push produces: a 65-byte uncompressed point and a 32-byte scalar. */
function assertVapidPair(publicKey: string, privateKey: string): void {
  const point = Buffer.from(publicKey, 'base64url');
  if (!BASE64URL.test(publicKey) || point.length !== 65 || point[0] !== 0x04) {
    throw new CredentialsError('VAPID public key must be an uncompressed P-256 point in base64url (65 bytes)');
  }
  const scalar = Buffer.from(privateKey, 'base64url');
  if (!BASE64URL.test(privateKey) || scalar.length !== 32) {
    throw new CredentialsError('VAPID private key must be a P-256 private key in base64url (32 bytes)');
  }
  try {
    // Rejects points that are not on the curve.
    createPublicKey({ format: 'jwk', key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') } });
  } catch {
    throw new CredentialsError('VAPID public key is not a point on P-256');
  }
  let derived: Buffer;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(scalar);
    derived = ecdh.getPublicKey();
  } catch {
    throw new CredentialsError('VAPID private key is not a valid P-256 private key');
  }
  if (!derived.equals(point)) throw new CredentialsError('VAPID public and private keys are not a pair');
}
