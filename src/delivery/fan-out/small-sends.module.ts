import { Module } from '@nestjs/common';
import { CredentialsModule } from '../../credentials/credentials.module';
import { ProvidersModule } from '../providers/providers.module';
import { FanOutRepository } from './fan-out.repository';
import { SmallSends } from './small-sends';

/** What the API needs to fan out a small send itself (docs/api.md#small-sends): the fan-out's statements, nothing of its jobs. */
@Module({
  imports: [CredentialsModule, ProvidersModule],
  providers: [SmallSends, FanOutRepository],
  exports: [SmallSends],
})
export class SmallSendsModule {}
