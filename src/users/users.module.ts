import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { UserAccessCheck } from './user-access';

/** What per-user routes share (docs/api.md#user-access); the modules of those routes import it. */
@Module({ imports: [AppsModule], providers: [UserAccessCheck], exports: [UserAccessCheck] })
export class UsersModule {}
