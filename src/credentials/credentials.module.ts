import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { CredentialsRepository } from './credentials.repository';
import { CredentialsService } from './credentials.service';

/** Provider credentials of each app (sealed at rest); used by the CLI and the delivery workers. */
@Module({ imports: [AppsModule], providers: [CredentialsService, CredentialsRepository], exports: [CredentialsService] })
export class CredentialsModule {}
