import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** An `apps` row as PostgreSQL returns it. */
export interface AppRow {
  id: string;
  name: string;
  created_at: Date;
}

/** The `apps` table. */
@Injectable()
export class AppsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(name: string): Promise<AppRow> {
    const [row] = await this.db.query(`INSERT INTO apps (name) VALUES ($1) RETURNING id, name, created_at`, [name]);
    return row;
  }

  list(): Promise<AppRow[]> {
    return this.db.query(`SELECT id, name, created_at FROM apps ORDER BY created_at, id`);
  }

  async find(id: string): Promise<AppRow | undefined> {
    const [row] = await this.db.query(`SELECT id, name, created_at FROM apps WHERE id = $1`, [id]);
    return row;
  }

  async exists(id: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM apps WHERE id = $1`, [id]);
    return rows.length > 0;
  }
}
