import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One chunk of a filter send's audience, as its filter selected them when the fan-out began
 * (docs/api.md#audience-filters): the ids (installations.id) that chunk of the fan-out writes,
 * numbered from 0; the chunk deletes its row as it writes their deliveries (FanOutRepository).
 */
@Entity('fanout_audiences')
export class FanOutAudienceChunk {
  @PrimaryColumn({ name: 'notification_id', type: 'uuid' })
  notificationId: string;

  @PrimaryColumn({ type: 'integer' })
  chunk: number;

  @Column({ name: 'installation_ids', type: 'uuid', array: true })
  installationIds: string[];
}
