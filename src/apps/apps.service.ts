import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface AppSummary {
  id: string;
  name: string;
  created_at: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class AppsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async create(name: string): Promise<AppSummary> {
    const [row] = await this.db.query(`INSERT INTO apps (name) VALUES ($1) RETURNING id, name, created_at`, [name]);
    return { id: row.id, name: row.name, created_at: row.created_at.toISOString() };
  }

  async list(): Promise<AppSummary[]> {
    const rows = await this.db.query(`SELECT id, name, created_at FROM apps ORDER BY created_at, id`);
    return rows.map((row: { id: string; name: string; created_at: Date }) => ({ ...row, created_at: row.created_at.toISOString() }));
  }

  async find(id: string): Promise<AppSummary | null> {
    if (!UUID.test(id)) return null;
    const [row] = await this.db.query(`SELECT id, name, created_at FROM apps WHERE id = $1`, [id]);
    return row ? { ...row, created_at: row.created_at.toISOString() } : null;
  }
}
