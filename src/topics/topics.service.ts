import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { MAX_TOPICS } from '../common/validation/domain-rules';
import { PutTopicDto, TopicResource } from './dto/topic.dto';
import { TopicRow, TopicsRepository } from './topics.repository';

export const toTopicResource = (row: TopicRow): TopicResource => ({
  key: row.key,
  name: row.name,
  description: row.description,
  default: row.default_subscribed ? 'subscribed' : 'unsubscribed',
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** An app's topics (docs/api.md#topics). */
@Injectable()
export class TopicsService {
  constructor(private readonly topics: TopicsRepository) {}

  async put(appId: string, key: string, dto: PutTopicDto): Promise<{ created: boolean; topic: TopicResource }> {
    const row = await this.topics.upsert(
      appId,
      key,
      { name: dto.name, description: dto.description ?? null, defaultSubscribed: dto.default === 'subscribed' },
      MAX_TOPICS,
    );
    if (!row) throw ValidationFailedError.of('key', `The app already has ${MAX_TOPICS} topics, the most it may have: delete one first.`);
    return { created: row.created, topic: toTopicResource(row) };
  }

  async list(appId: string): Promise<TopicResource[]> {
    return (await this.topics.list(appId)).map(toTopicResource);
  }

  async find(appId: string, key: string): Promise<TopicResource> {
    const row = await this.topics.find(appId, key);
    if (!row) throw new NotFoundError();
    return toTopicResource(row);
  }

  /** A send's or count's topic must exist (docs/api.md#topics-and-preferences): else a 422 at `path`. */
  async assertExists(appId: string, key: string, path: string): Promise<void> {
    if (!(await this.topics.find(appId, key))) throw ValidationFailedError.of(path, `The ${path} field names no topic of the app.`);
  }

  async remove(appId: string, key: string): Promise<void> {
    if (!(await this.topics.delete(appId, key))) throw new NotFoundError();
  }
}
