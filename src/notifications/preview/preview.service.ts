import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ValidationFailedError } from '../../common/errors';
import type { PushContent } from '../../delivery/providers/payloads';
import { needsRendering } from '../../delivery/providers/personalize';
import { TemplatesService } from '../../templates/templates.service';
import { NotificationsService } from '../notifications.service';
import { PreviewSendDto, PreviewTemplateDto } from './preview.dto';
import { type PlatformPreview, previewOf } from './preview';
import { PreviewRepository } from './preview.repository';

const NO_INSTALLATION = { user_id: null, locale: null, app_version: null, properties: null, holds_subscription: false };

/** What an installation would receive, without sending (docs/api.md#preview). */
@Injectable()
export class PreviewService {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly templates: TemplatesService,
    private readonly installations: PreviewRepository,
  ) {}

  /** A send body's messages; checked as the send would be. */
  async send(appId: string, dto: PreviewSendDto) {
    // A send with variants (docs/api.md#variants) is previewed as its first variant.
    const variants = await this.notifications.variantsOf(appId, dto);
    const { content, template } = await this.notifications.contentOf(appId, dto, randomUUID(), variants);
    const first = variants?.[0];
    const variables = first ? first.variables : ((template ? dto.template?.variables : dto.variables) ?? null);
    const liquid = first ? first.template !== null || dto.options?.personalize === true : template !== null || dto.options?.personalize === true;
    return this.preview(appId, content, liquid, variables, dto.installation_id);
  }

  /** A template's latest version's messages, with these variables. */
  async template(appId: string, key: string, dto: PreviewTemplateDto) {
    await this.templates.find(appId, key);
    const template = await this.templates.forSend(appId, key, undefined, 'key');
    const content: PushContent = {
      id: randomUUID(),
      title: template.notification.title,
      body: template.notification.body,
      image_url: template.notification.image_url ?? null,
      action_url: template.notification.action_url ?? null,
      data: template.data,
      options: null,
      localizations: template.localizations,
    };
    return this.preview(appId, content, true, dto.variables ?? null, dto.installation_id);
  }

  private async preview(appId: string, content: PushContent, liquid: boolean, variables: Record<string, unknown> | null, installationId?: string) {
    const personalized: PushContent = liquid && needsRendering(content) ? { ...content, personalization: { variables } } : content;
    let platforms: PlatformPreview[];
    if (installationId === undefined) {
      platforms = previewOf(personalized, { ...NO_INSTALLATION, platform: 'ios' }, null);
    } else {
      const installation = await this.installations.installation(appId, installationId);
      if (!installation) throw ValidationFailedError.of('installation_id', 'The installation_id field names no installation of the app.');
      platforms = previewOf(personalized, installation, installation.platform);
    }
    return { installation_id: installationId ?? null, platforms };
  }
}
