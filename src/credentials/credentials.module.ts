import { Module } from '@nestjs/common';
import { CredentialsService } from './credentials.service';

/** Provider credentials of each app (sealed at rest); used by the CLI and the delivery workers. */
@Module({ providers: [CredentialsService], exports: [CredentialsService] })
export class CredentialsModule {}
