import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { AuthModule } from '../auth/auth.module';
import { ConfigModule } from '../config/config.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { DatabaseModule } from '../database/database.module';
import { AppsCreateCommand, AppsListCommand } from './apps.commands';
import { AppsCredentialsCommand } from './credentials.command';
import { MigrateCommand, SetupCommand } from './setup.commands';
import { TokensCreateCommand, TokensListCommand, TokensRevokeCommand } from './tokens.commands';

/** The operator CLI: PostgreSQL only, no Redis, no HTTP. */
@Module({
  imports: [ConfigModule, DatabaseModule, AppsModule, AuthModule, CredentialsModule],
  providers: [
    MigrateCommand,
    SetupCommand,
    AppsCreateCommand,
    AppsListCommand,
    AppsCredentialsCommand,
    TokensCreateCommand,
    TokensListCommand,
    TokensRevokeCommand,
  ],
})
export class CliModule {}
