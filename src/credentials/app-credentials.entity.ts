import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { App } from '../apps/app.entity';

/**
 * Provider credentials of one app. Columns ending in `_enc` hold secrets sealed with APP_KEY
 * (AES-256-GCM, see secret-box.ts): the database alone never reveals them.
 */
@Entity('app_credentials')
export class AppCredentials {
  @PrimaryColumn({ name: 'app_id', type: 'uuid' })
  appId: string;

  @OneToOne(() => App, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'app_credentials_app_id_fkey' })
  app?: App;

  @Column({ name: 'apns_key_id', type: 'varchar', length: 64, nullable: true })
  apnsKeyId: string | null;

  @Column({ name: 'apns_team_id', type: 'varchar', length: 64, nullable: true })
  apnsTeamId: string | null;

  @Column({ name: 'apns_topic', type: 'varchar', length: 255, nullable: true })
  apnsTopic: string | null;

  @Column({ name: 'apns_production', type: 'boolean', nullable: true })
  apnsProduction: boolean | null;

  @Column({ name: 'apns_private_key_enc', type: 'text', nullable: true })
  apnsPrivateKeyEnc: string | null;

  @Column({ name: 'fcm_project_id', type: 'varchar', length: 255, nullable: true })
  fcmProjectId: string | null;

  @Column({ name: 'fcm_client_email', type: 'varchar', length: 255, nullable: true })
  fcmClientEmail: string | null;

  @Column({ name: 'fcm_service_account_enc', type: 'text', nullable: true })
  fcmServiceAccountEnc: string | null;

  @Column({ name: 'vapid_subject', type: 'varchar', length: 255, nullable: true })
  vapidSubject: string | null;

  @Column({ name: 'vapid_public_key', type: 'varchar', length: 255, nullable: true })
  vapidPublicKey: string | null;

  @Column({ name: 'vapid_private_key_enc', type: 'text', nullable: true })
  vapidPrivateKeyEnc: string | null;

  @Column({ name: 'hms_app_id', type: 'varchar', length: 64, nullable: true })
  hmsAppId: string | null;

  @Column({ name: 'hms_client_id', type: 'varchar', length: 64, nullable: true })
  hmsClientId: string | null;

  @Column({ name: 'hms_client_secret_enc', type: 'text', nullable: true })
  hmsClientSecretEnc: string | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
