import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppCredentials } from './app-credentials.entity';

/** Thrown by `upsert` when the app does not exist (the foreign key refused the row). */
export class UnknownAppError extends Error {}

/** The `app_credentials` table. Secrets arrive and leave sealed; this class never sees them in clear. */
@Injectable()
export class CredentialsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async find(appId: string): Promise<AppCredentials | null> {
    return this.db.getRepository(AppCredentials).findOneBy({ appId });
  }

  /**
   * One atomic INSERT ... ON CONFLICT naming only the given columns, so concurrent updates of
   * different providers cannot overwrite each other (a read-modify-write could). Columns in
   * `keepExisting` keep their stored value when the row already has a VAPID public key: paired
   * columns follow the public key, so a pair is never mixed with another.
   */
  async upsert(appId: string, values: Map<string, unknown>, keepExisting: Set<string>): Promise<void> {
    const columns = [...values.keys()];
    const params = [appId, ...values.values()];
    const assignments = columns.map((column) =>
      keepExisting.has(column)
        ? `"${column}" = CASE WHEN app_credentials.vapid_public_key IS NULL THEN EXCLUDED."${column}" ELSE app_credentials."${column}" END`
        : `"${column}" = EXCLUDED."${column}"`,
    );
    try {
      await this.db.query(
        `INSERT INTO app_credentials (app_id, ${columns.map((c) => `"${c}"`).join(', ')})
         VALUES (${params.map((_, i) => `$${i + 1}`).join(', ')})
         ON CONFLICT (app_id) DO UPDATE SET ${assignments.join(', ')}, updated_at = now()`,
        params,
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23503') throw new UnknownAppError(appId);
      throw error;
    }
  }
}
