import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { AppsModule } from '../apps/apps.module';
import { AuthModule } from '../auth/auth.module';
import { ConfigModule } from '../config/config.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { typeOrmModuleOptions } from '../database/data-source';
import { AppsCreateCommand, AppsDeleteCommand, AppsIdentitySecretCommand, AppsListCommand, AppsSettingsCommand } from './apps.commands';
import { ProvidersModule } from '../delivery/providers/providers.module';
import { CliError } from './cli-error';
import { CredentialsCheckCommand } from './credentials-check.command';
import { AppKeyRotateCommand, AppsCredentialsCommand, AppsCredentialsRemoveCommand } from './credentials.command';
import { MigrateCommand, SetupCommand } from './setup.commands';
import { TokensCreateCommand, TokensListCommand, TokensRevokeCommand } from './tokens.commands';
import { WebhooksCreateCommand, WebhooksDeleteCommand, WebhooksListCommand } from './webhooks.commands';
import { WebhooksModule } from '../webhooks/webhooks.module';

/**
 * The CLI's connection: a single attempt, since an operator at a terminal wants the cause now,
 * not TypeORM's ten retries three seconds apart with a stack trace each; the failure names the
 * database so the one line cli.ts prints says what went wrong.
 */
const CliDatabaseModule = TypeOrmModule.forRootAsync({
  useFactory: () => ({ ...typeOrmModuleOptions(), retryAttempts: 0, toRetry: () => false }),
  dataSourceFactory: async (options?: DataSourceOptions) => {
    try {
      return await new DataSource(options!).initialize();
    } catch (error) {
      // A refused connection to a name with several addresses is an AggregateError without a message.
      const { message, code } = error as { message?: string; code?: string };
      throw new CliError(`Cannot connect to the database: ${message || code || String(error)}`);
    }
  },
});

/** The operator CLI: PostgreSQL only, no Redis, no HTTP. */
@Module({
  imports: [ConfigModule, CliDatabaseModule, AppsModule, AuthModule, CredentialsModule, ProvidersModule, WebhooksModule],
  providers: [
    MigrateCommand,
    SetupCommand,
    AppsCreateCommand,
    AppsListCommand,
    AppsDeleteCommand,
    AppsSettingsCommand,
    AppsIdentitySecretCommand,
    AppsCredentialsCommand,
    AppsCredentialsRemoveCommand,
    AppKeyRotateCommand,
    CredentialsCheckCommand,
    TokensCreateCommand,
    TokensListCommand,
    TokensRevokeCommand,
    WebhooksCreateCommand,
    WebhooksListCommand,
    WebhooksDeleteCommand,
  ],
})
export class CliModule {}
