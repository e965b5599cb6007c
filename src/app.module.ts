import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AdminModule } from './admin/admin.module';
import { AbilitiesGuard } from './auth/abilities.guard';
import { AuthModule } from './auth/auth.module';
import { AllExceptionsFilter } from './common/http/all-exceptions.filter';
import { RequestBodyGuard } from './common/http/request-body.guard';
import { RequestValidationPipe } from './common/validation/request-validation.pipe';
import { SchemaGuard } from './database/schema.guard';
import { HealthModule } from './health/health.module';
import { InboxModule } from './inbox/inbox.module';
import { InstallationsModule } from './installations/installations.module';
import { LiveActivitiesModule } from './live-activities/live-activities.module';
import { NotificationsModule } from './notifications/notifications.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { TokenThrottlerGuard } from './rate-limit/token-throttler.guard';
import { SdkModule } from './sdk/sdk.module';
import { TemplatesModule } from './templates/templates.module';
import { TopicsModule } from './topics/topics.module';
import { UsersModule } from './users/users.module';
import { CoreModule, WorkerModule } from './worker.module';

/**
 * The HTTP API. The global guard, pipe, filter and interceptor are APP_* providers so that a test
 * app built from this module behaves exactly like production.
 */
@Module({
  imports: [
    CoreModule,
    AuthModule,
    InstallationsModule,
    NotificationsModule,
    InboxModule,
    LiveActivitiesModule,
    HealthModule,
    RateLimitModule,
    AdminModule,
    UsersModule,
    TopicsModule,
    TemplatesModule,
    SdkModule,
  ],
  providers: [
    // First: with migrations pending even the token lookup would fail.
    { provide: APP_GUARD, useClass: SchemaGuard },
    { provide: APP_GUARD, useClass: AbilitiesGuard },
    // Guards run in this order: the rate limit counts per token, so it needs the caller first.
    { provide: APP_GUARD, useClass: TokenThrottlerGuard },
    // Last: body errors (413, 415, malformed JSON) only for a known caller within its rate.
    { provide: APP_GUARD, useClass: RequestBodyGuard },
    { provide: APP_PIPE, useClass: RequestValidationPipe },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
  ],
})
export class ApiModule {}

/** APP_MODE=all: the API and the worker in one process. */
@Module({ imports: [ApiModule, WorkerModule] })
export class AllModule {}
