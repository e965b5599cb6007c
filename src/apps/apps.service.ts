import { Injectable } from '@nestjs/common';
import { isUuid } from '../common/uuid';
import { AppRow, AppsRepository, DeletedCounts } from './apps.repository';

export interface AppSummary {
  id: string;
  name: string;
  created_at: string;
}

const summary = (row: AppRow): AppSummary => ({ id: row.id, name: row.name, created_at: row.created_at.toISOString() });

@Injectable()
export class AppsService {
  constructor(private readonly apps: AppsRepository) {}

  async create(name: string): Promise<AppSummary> {
    return summary(await this.apps.insert(name));
  }

  async list(): Promise<AppSummary[]> {
    return (await this.apps.list()).map(summary);
  }

  /** Deletes the app and everything it owns (see AppsRepository.delete); null when there is no such app. */
  async delete(id: string): Promise<(AppSummary & { deleted: DeletedCounts }) | null> {
    if (!isUuid(id)) return null;
    const row = await this.apps.delete(id);
    if (!row) return null;
    const { tokens, installations, notifications, deliveries } = row;
    return { ...summary(row), deleted: { tokens, installations, notifications, deliveries } };
  }

  async find(id: string): Promise<AppSummary | null> {
    if (!isUuid(id)) return null;
    const row = await this.apps.find(id);
    return row ? summary(row) : null;
  }
}
