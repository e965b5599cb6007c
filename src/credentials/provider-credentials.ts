import type { ApnsCredentials } from './apns.credentials';
import type { FcmCredentials } from './fcm.credentials';
import type { HmsCredentials } from './hms.credentials';
import type { VapidCredentials } from './web-push.credentials';

export { CredentialsError } from './sealed-columns';
export type { ColumnValues, OpenFrom, SealFor } from './sealed-columns';

/** Decrypted provider credentials of one app; a part is null when the app has none for it. */
export interface ProviderCredentials {
  appId: string;
  apns: ApnsCredentials | null;
  fcm: FcmCredentials | null;
  vapid: VapidCredentials | null;
  hms: HmsCredentials | null;
}
