import { Module } from '@nestjs/common';
import { AppsRepository } from './apps.repository';
import { AppsService } from './apps.service';

@Module({ providers: [AppsService, AppsRepository], exports: [AppsService, AppsRepository] })
export class AppsModule {}
