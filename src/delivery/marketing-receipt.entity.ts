import { Entity, PrimaryColumn } from 'typeorm';

/**
 * One marketing message a provider accepted for an installation (docs/api.md#pacing): what the
 * frequency cap counts at fan-out.
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
