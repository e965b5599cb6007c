import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { PreferencesController } from './preferences.controller';
import { PreferencesRepository } from './preferences.repository';
import { PreferencesService } from './preferences.service';
import { TopicsController } from './topics.controller';
import { TopicsRepository } from './topics.repository';
import { TopicsService } from './topics.service';

/** Topics and per-user preferences (docs/api.md#topics-and-preferences). */
@Module({
  imports: [UsersModule],
  controllers: [TopicsController, PreferencesController],
  providers: [TopicsService, TopicsRepository, PreferencesService, PreferencesRepository],
  exports: [TopicsService, PreferencesService],
})
export class TopicsModule {}
