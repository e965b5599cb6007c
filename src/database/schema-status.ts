import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export const SCHEMA_RECHECK_MS = 2_000;

export const MIGRATE_HINT = 'run `npx pns migrate` (or `node dist/src/cli.js migrate`), or set MIGRATE_ON_START=true';

/** Whether every migration of this build is applied, checked until it is: the API answers 503 meanwhile, not a 500 per call. */
@Injectable()
export class SchemaStatus implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Database');
  private missing: string[] = [];
  private timer?: NodeJS.Timeout;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  get pending(): readonly string[] {
    return this.missing;
  }

  get reason(): string {
    return `${this.missing.length} database migration(s) pending (${this.missing.join(', ')}): ${MIGRATE_HINT}`;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.refresh();
    if (this.missing.length === 0) return;
    this.logger.warn(`${this.reason}. The API answers 503 until then.`);
    this.timer = setInterval(() => {
      this.refresh().then(
        () => {
          if (this.missing.length > 0) return;
          clearInterval(this.timer);
          this.logger.log('Database migrations applied: the API is ready');
        },
        () => undefined,
      );
    }, SCHEMA_RECHECK_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async refresh(): Promise<void> {
    const known = this.dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name);
    const table = this.dataSource.options.migrationsTableName ?? 'migrations';
    const [{ present }] = await this.dataSource.query<[{ present: boolean }]>(`SELECT to_regclass($1) IS NOT NULL AS present`, [table]);
    const applied = new Set<string>(present ? (await this.dataSource.query<{ name: string }[]>(`SELECT name FROM "${table}"`)).map((row) => row.name) : []);
    this.missing = known.filter((name) => !applied.has(name));
  }
}
