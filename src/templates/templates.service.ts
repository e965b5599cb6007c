import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { liquidErrors } from '../common/liquid';
import { CredentialsService } from '../credentials/credentials.service';
import { fitProblem, oversized } from '../delivery/providers/payloads';
import { PutTemplateDto, TemplateResource } from './dto/template.dto';
import { TemplateRow, TemplatesRepository } from './templates.repository';

export const toTemplateResource = (row: TemplateRow): TemplateResource => ({
  key: row.key,
  name: row.name,
  notification: {
    title: row.notification.title,
    body: row.notification.body,
    image_url: row.notification.image_url ?? null,
    action_url: row.notification.action_url ?? null,
  },
  localizations: row.localizations,
  data: row.data,
  version: row.version,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** An app's templates and their versions (docs/api.md#templates). */
@Injectable()
export class TemplatesService {
  constructor(
    private readonly templates: TemplatesRepository,
    private readonly credentials: CredentialsService,
  ) {}

  /** Checked when saved: each text parses as Liquid, and the unrendered texts fit the app's platforms. */
  async put(appId: string, key: string, dto: PutTemplateDto): Promise<{ created: boolean; template: TemplateResource }> {
    const notification = {
      title: dto.notification.title,
      body: dto.notification.body,
      image_url: dto.notification.image_url ?? null,
      action_url: dto.notification.action_url ?? null,
    };
    const localizations = dto.localizations ?? null;
    const errors = liquidErrors({ ...notification, localizations }, 'notification', 'localizations');
    if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
    const tooLarge = oversized({ id: '00000000-0000-0000-0000-000000000000', ...notification, data: dto.data ?? null, options: null, localizations });
    const problem = tooLarge.length > 0 ? fitProblem(tooLarge, await this.credentials.platforms(appId)) : null;
    if (problem) throw ValidationFailedError.of(problem.path.replace(/^notification\.localizations/, 'localizations'), problem.message);
    const saved = await this.templates.save(appId, key, {
      name: dto.name,
      notification,
      localizations: localizations as TemplateRow['localizations'],
      data: dto.data ?? null,
    });
    return { created: saved.created, template: toTemplateResource(saved.row) };
  }

  async list(appId: string): Promise<TemplateResource[]> {
    return (await this.templates.list(appId)).map(toTemplateResource);
  }

  /** The latest version, or version `version`. */
  async find(appId: string, key: string, version: number | null = null): Promise<TemplateResource> {
    const row = await this.templates.find(appId, key, version);
    if (!row) throw new NotFoundError();
    return toTemplateResource(row);
  }

  /** A send's template (docs/api.md#sending-with-a-template): else a 422 at `path`.key or `path`.version. */
  async forSend(appId: string, key: string, version: number | undefined, path: string): Promise<TemplateRow> {
    const row = await this.templates.find(appId, key, version ?? null);
    if (row) return row;
    if (version !== undefined && (await this.templates.find(appId, key, null))) {
      throw ValidationFailedError.of(`${path}.version`, `The ${path}.version field names no version of template ${key}.`);
    }
    throw ValidationFailedError.of(`${path}.key`, `The ${path}.key field names no template of the app.`);
  }

  async remove(appId: string, key: string): Promise<void> {
    if (!(await this.templates.delete(appId, key))) throw new NotFoundError();
  }
}
