import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** Whether PostgreSQL answers, for `pns_dependency_up{dependency="database"}`. */
@SqlFile('database-ping.repository.sql')
@Injectable()
export class DatabasePingRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({ params: [] })
  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}
