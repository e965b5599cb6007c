import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../common/errors';
import { PreferencesResource, UpdatePreferencesDto } from './dto/preferences.dto';
import { PreferencesRepository, StoredPreferences } from './preferences.repository';

/** A channel nobody chose is on (docs/api.md#preferences). */
export const CHANNEL_DEFAULT = true;

export function toPreferencesResource(userId: string, stored: StoredPreferences): PreferencesResource {
  const topics: PreferencesResource['topics'] = {};
  for (const t of stored.topics) {
    topics[t.key] = t.subscribed === null ? { subscribed: t.default_subscribed, source: 'default' } : { subscribed: t.subscribed, source: 'user' };
  }
  return {
    user_id: userId,
    topics,
    channels: { push: stored.channels?.push ?? CHANNEL_DEFAULT, inbox: stored.channels?.inbox ?? CHANNEL_DEFAULT },
  };
}

/** A user's topic and channel choices, with the defaults filled in. */
@Injectable()
export class PreferencesService {
  constructor(private readonly preferences: PreferencesRepository) {}

  async get(appId: string, userId: string): Promise<PreferencesResource> {
    return toPreferencesResource(userId, await this.preferences.read(appId, userId));
  }

  async update(appId: string, userId: string, dto: UpdatePreferencesDto): Promise<PreferencesResource> {
    const channels = dto.channels ?? {};
    if (dto.topics === undefined && dto.channels === undefined) {
      throw ValidationFailedError.of('body', 'The request body must contain at least one of topics, channels.');
    }
    const choices = Object.entries(dto.topics ?? {});
    if (choices.length > 0) {
      const known = new Set((await this.preferences.read(appId, userId)).topics.map((t) => t.key));
      const unknown = choices.filter(([key]) => !known.has(key));
      if (unknown.length > 0) {
        throw new ValidationFailedError(Object.fromEntries(unknown.map(([key]) => [`topics.${key}`, [`The topics.${key} field names no topic of the app.`]])));
      }
    }
    await this.preferences.change(appId, userId, {
      topics: choices.map(([key, subscribed]) => ({ key, subscribed })),
      push: channels.push,
      inbox: channels.inbox,
    });
    return this.get(appId, userId);
  }
}
