import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AT, ID } from '../../queries/fixtures';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';

/** Writes `installation_days` (migration InstallationDays); the dashboard's analytics read it in their own repository. */
@Injectable()
@SqlFile('installation-days.repository.sql')
export class InstallationDaysRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Every app's live installations by platform and permission, as the counts of `day`: the day's
   * earlier counts are replaced, so a group that emptied since is gone. One transaction; answers the
   * rows written.
   */
  @GenerateSql({ params: [AT], answers: [[], [[{ app_id: ID }], 1]] })
  async snapshot(day: Date): Promise<number> {
    return this.db.transaction(async (manager) => {
      await manager.query(`DELETE FROM installation_days WHERE day = $1::date`, [day]);
      const [rows]: [unknown[], number] = await manager.query(
        `INSERT INTO installation_days (app_id, day, platform, permission, installations)
         SELECT app_id, $1::date, platform, permission, count(*)::int FROM installations
         WHERE deleted_at IS NULL
         GROUP BY app_id, platform, permission
         RETURNING app_id`,
        [day],
      );
      return rows.length;
    });
  }
}
