import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { TemplateReadAccess } from './template-read-access';
import { TemplatesController } from './templates.controller';
import { TemplatesRepository } from './templates.repository';
import { TemplatesService } from './templates.service';

/** Templates (docs/api.md#templates); sends name them through TemplatesService.forSend. */
@Module({
  // Which platforms an app can reach decides which payload limits a template's texts must fit.
  imports: [CredentialsModule],
  controllers: [TemplatesController],
  providers: [TemplatesService, TemplatesRepository, TemplateReadAccess],
  exports: [TemplatesService],
})
export class TemplatesModule {}
