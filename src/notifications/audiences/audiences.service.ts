import { Injectable } from '@nestjs/common';
import { Platform } from '../../common/platform';
import { Clock } from '../../common/time';
import { AudienceSlots } from './audience-slots';
import { TopicsService } from '../../topics/topics.service';
import { RECIPIENT_KINDS } from '../../common/vocabulary';
import { Audience, AudiencesRepository } from './audiences.repository';
import { AudienceCount } from '../dto/count-audience.dto';
import { RecipientsDto } from '../dto/send-notification.dto';

/** How many installations a send's recipients would consider now (docs/api.md#count-an-audience). */
@Injectable()
export class AudiencesService {
  constructor(
    private readonly audiences: AudiencesRepository,
    private readonly clock: Clock,
    private readonly topics: TopicsService,
    private readonly slots: AudienceSlots,
  ) {}

  /**
   * `signal` aborts when the client hangs up: the count's statement is cancelled. Over AUDIENCE_CONCURRENCY
   * or AUDIENCE_CONCURRENCY_PER_APP, AudienceBusyError (429) without touching the database.
   */
  async count(appId: string, recipients: RecipientsDto, signal?: AbortSignal): Promise<AudienceCount> {
    if (recipients.topic !== undefined) await this.topics.assertExists(appId, recipients.topic, 'recipients.topic');
    const audience = this.audience(recipients);
    const rows = await this.slots.run(appId, () => this.audiences.count(appId, audience, signal));
    const total = rows.find((row) => row.platform === null);
    const platforms = { ios: 0, android: 0, web: 0, huawei: 0 } satisfies Record<Platform, number>;
    for (const row of rows) if (row.platform !== null) platforms[row.platform] = row.installations;
    return {
      installations: total?.installations ?? 0,
      sendable: total?.sendable ?? 0,
      users: total?.users ?? 0,
      platforms,
    };
  }

  private audience(recipients: RecipientsDto): Audience {
    const kind = RECIPIENT_KINDS.find((k) => recipients[k] !== undefined)!;
    switch (kind) {
      case 'all':
        return { kind };
      case 'filter':
        return { kind, filter: recipients.filter!, now: new Date(this.clock.now()) };
      case 'user_ids':
      case 'installation_ids':
      case 'tags':
        return { kind, list: [...new Set(recipients[kind])] };
      case 'topic':
        return { kind, topic: recipients.topic! };
    }
  }
}
