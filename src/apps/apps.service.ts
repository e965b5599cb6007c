import { Injectable } from '@nestjs/common';
import { isUuid } from '../common/uuid';
import { AppRow, AppsRepository } from './apps.repository';

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

  async find(id: string): Promise<AppSummary | null> {
    if (!isUuid(id)) return null;
    const row = await this.apps.find(id);
    return row ? summary(row) : null;
  }
}
