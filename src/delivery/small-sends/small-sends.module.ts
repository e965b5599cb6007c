import { Module } from '@nestjs/common';
import { CredentialsModule } from '../../credentials/credentials.module';
import { SmallSendsRepository } from './small-sends.repository';
import { SmallSendsService } from './small-sends.service';

/** The API's side of small sends (docs/api.md#small-sends): their statement, nothing of the jobs (the processor is the worker's). */
@Module({
  imports: [CredentialsModule],
  providers: [SmallSendsService, SmallSendsRepository],
  exports: [SmallSendsService],
})
export class SmallSendsModule {}
