import { DynamicModule, Injectable, Module, OnModuleInit, Type } from '@nestjs/common';
import { InjectCommander } from 'nest-commander';
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
import { OperatorsCreateCommand, OperatorsDisableCommand, OperatorsListCommand } from './operators.commands';
import { AuditModule } from '../audit/audit.module';
import { OperatorsModule } from '../operators/operators.module';
import { TokensCreateCommand, TokensListCommand, TokensRevokeCommand } from './tokens.commands';
import { WebhooksCreateCommand, WebhooksDeleteCommand, WebhooksListCommand } from './webhooks.commands';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { SandboxCommand } from './sandbox.command';
import { ExportCommand, ImportCommand } from './transfer.commands';
import { TransferModule } from '../transfer/transfer.module';

const SETUP_HINT = 'run `npm run setup` to create and migrate it';

/** One attempt, naming the database: an operator at a terminal wants the cause now, not ten retries. */
const cliDatabaseModule = (connect: boolean) =>
  TypeOrmModule.forRootAsync({
    useFactory: () => ({ ...typeOrmModuleOptions(), retryAttempts: 0, toRetry: () => false, manualInitialization: !connect }),
    dataSourceFactory: async (options?: DataSourceOptions) => {
      const dataSource = new DataSource(options!);
      if (!connect) return dataSource;
      try {
        return await dataSource.initialize();
      } catch (error) {
        const { message, code } = error as { message?: string; code?: string };
        // 3D000: the database does not exist (a fresh server, before setup).
        const hint = code === '3D000' ? `: ${SETUP_HINT}` : '';
        throw new CliError(`Cannot connect to the database: ${message || code || String(error)}${hint}`);
      }
    },
  });

/** Help and errors say `pns`, the package's bin. */
@Injectable()
class CliName implements OnModuleInit {
  constructor(@InjectCommander() private readonly commander: { name(name: string): unknown }) {}

  onModuleInit(): void {
    this.commander.name('pns');
  }
}

export const CLI_COMMANDS: Type[] = [
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
  TokensCreateCommand,
  TokensListCommand,
  TokensRevokeCommand,
  WebhooksCreateCommand,
  WebhooksListCommand,
  WebhooksDeleteCommand,
  CredentialsCheckCommand,
  SandboxCommand,
  ImportCommand,
  ExportCommand,
  OperatorsCreateCommand,
  OperatorsListCommand,
  OperatorsDisableCommand,
];

@Module({})
export class CliModule {
  /** `connect: false` only to print help or refuse an unknown command. */
  static forRun(connect: boolean): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule,
        cliDatabaseModule(connect),
        AppsModule,
        AuthModule,
        CredentialsModule,
        ProvidersModule,
        WebhooksModule,
        TransferModule,
        OperatorsModule,
        AuditModule,
      ],
      providers: [CliName, ...CLI_COMMANDS],
    };
  }
}
