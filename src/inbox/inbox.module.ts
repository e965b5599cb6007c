import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { InboxChangesRepository } from './inbox-changes.repository';
import { InboxStreamsService } from './inbox-streams.service';
import { InboxController } from './inbox.controller';
import { InboxRepository } from './inbox.repository';
import { InboxService } from './inbox.service';

/** The inbox API (docs/api.md#inbox); the worker's fan-out stores the messages. */
@Module({
  imports: [UsersModule],
  controllers: [InboxController],
  providers: [InboxService, InboxRepository, InboxStreamsService, InboxChangesRepository],
  exports: [InboxService],
})
export class InboxModule {}
