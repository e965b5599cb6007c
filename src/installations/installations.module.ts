import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { Clock } from '../common/time';
import { InstallationsController } from './installations.controller';
import { InstallationsRepository } from './installations.repository';
import { InstallationsService } from './installations.service';

@Module({
  imports: [AppsModule],
  controllers: [InstallationsController],
  providers: [InstallationsService, InstallationsRepository, Clock],
  exports: [InstallationsService],
})
export class InstallationsModule {}
