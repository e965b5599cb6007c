import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BULL_BOARD_ADAPTER, type BullBoardInstance, BullBoardModule, BullBoardModuleOptions, InjectBullBoard } from '@bull-board/nestjs';
import { Inject, MiddlewareConsumer, Module, NestModule, OnModuleInit } from '@nestjs/common';
import type { Express } from 'express';
import { AppsModule } from '../apps/apps.module';
import { AuthModule } from '../auth/auth.module';
import { ProvidersModule } from '../delivery/providers/providers.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { InboxModule } from '../inbox/inbox.module';
import { InstallationsModule } from '../installations/installations.module';
import { LiveActivitiesModule } from '../live-activities/live-activities.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { RateLimitStorageModule } from '../rate-limit/rate-limit.module';
import { TemplatesModule } from '../templates/templates.module';
import { TopicsModule } from '../topics/topics.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { EnvironmentVariables } from '../config/env';
import { QueueInspector } from '../queue/queue-inspector';
import { QueueInspectorModule } from '../queue/queue-inspector.module';
import { ADMIN_ROUTE, adminQueuesDoor } from './admin-auth.middleware';
import { adminApiNoStore, adminPages, adminPagesDir } from './admin-pages.middleware';
import { AdminSessionsModule } from './admin-sessions.module';
import { AdminSessionsService } from './admin-sessions.service';
import { AdminAccountController } from './admin-account.controller';
import { AdminController } from './admin.controller';
import { AdminOperatorsController } from './admin-operators.controller';
import { AdminOidcController } from './admin-oidc.controller';
import { AdminOidcService } from './admin-oidc.service';
import { AnalyticsController } from './analytics/analytics.controller';
import { AnalyticsRepository } from './analytics/analytics.repository';
import { AnalyticsService } from './analytics/analytics.service';
import { AppsConsoleController } from './apps-console/apps-console.controller';
import { AppsConsoleService } from './apps-console/apps-console.service';
import { ComposerController } from './composer/composer.controller';
import { AdminGuard } from './admin.guard';
import { AdminRepository } from './admin.repository';
import { AdminService } from './admin.service';

/** The operator dashboard (docs/operations.md "Operator dashboard"); bull-board's queues are added only when it is on. */
@Module({
  imports: [
    AppsModule,
    AuthModule,
    ProvidersModule,
    CredentialsModule,
    InboxModule,
    InstallationsModule,
    LiveActivitiesModule,
    NotificationsModule,
    RateLimitStorageModule,
    TemplatesModule,
    TopicsModule,
    WebhooksModule,
    QueueInspectorModule,
    AdminSessionsModule,
    BullBoardModule.forRootAsync({
      imports: [AdminSessionsModule],
      inject: [AdminSessionsService],
      useFactory: (sessions: AdminSessionsService) => ({
        route: ADMIN_ROUTE,
        // @bull-board/express pins another @bull-board/api patch than @bull-board/nestjs: the same classes at runtime.
        adapter: ExpressAdapter as unknown as BullBoardModuleOptions['adapter'],
        middleware: adminQueuesDoor(sessions),
        boardOptions: { uiConfig: { boardTitle: 'Push queues' } },
      }),
    }),
  ],
  controllers: [
    AdminController,
    AdminOperatorsController,
    AdminOidcController,
    AdminAccountController,
    AppsConsoleController,
    AnalyticsController,
    ComposerController,
  ],
  providers: [AdminService, AdminRepository, AdminGuard, AdminOidcService, AppsConsoleService, AnalyticsService, AnalyticsRepository],
  exports: [AdminSessionsModule],
})
export class AdminModule implements OnModuleInit, NestModule {
  constructor(
    @InjectBullBoard() private readonly board: BullBoardInstance,
    @Inject(BULL_BOARD_ADAPTER) private readonly adapter: ExpressAdapter,
    private readonly inspector: QueueInspector,
    private readonly config: EnvironmentVariables,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    const on = Boolean(this.config.ADMIN_USER && this.config.ADMIN_PASSWORD);
    consumer.apply(adminApiNoStore).forRoutes('admin/api', 'admin/api/*path');
    consumer.apply(adminPages(on, adminPagesDir())).forRoutes('admin', 'admin/*path');
  }

  onModuleInit(): void {
    // The dashboard is its own Express app: it would advertise Express, which the API does not.
    (this.adapter.getRouter() as Express).disable('x-powered-by');
    if (!this.config.ADMIN_USER || !this.config.ADMIN_PASSWORD) return;
    this.board.replaceQueues(this.inspector.queues().map((queue) => new BullMQAdapter(queue)));
  }
}
