/** Decrypted provider credentials of one app; a part is null when the app has none for it. */
export interface ProviderCredentials {
  appId: string;
  apns: { keyId: string; teamId: string; topic: string; production: boolean; privateKey: string } | null;
  fcm: { projectId: string; clientEmail: string; privateKeyId: string; privateKey: string } | null;
  vapid: { subject: string; publicKey: string; privateKey: string } | null;
}
