import { Entity, PrimaryColumn } from 'typeorm';

/**
 * One marketing message a provider accepted for an installation (docs/api.md#pacing): what the
 * frequency cap counts at fan-out. Written by the statement that records outcomes, only for
 * marketing sends; keyed (installation_id, accepted_at, ...) so an installation's count within
 * the window is one index-only range scan of its own entries, stopped at the cap. No foreign keys:
 * a check and a lock per accepted message for rows that retention deletes by age
 * (migration Pacing).
 */
@Entity('marketing_receipts')
export class MarketingReceipt {
  @PrimaryColumn({ name: 'installation_id', type: 'uuid' })
  installationId: string;

  @PrimaryColumn({ name: 'accepted_at', type: 'timestamptz' })
  acceptedAt: Date;

  @PrimaryColumn({ name: 'notification_id', type: 'uuid' })
  notificationId: string;
}
