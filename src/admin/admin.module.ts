import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BULL_BOARD_ADAPTER, BullBoardInstance, BullBoardModule, BullBoardModuleOptions, InjectBullBoard } from '@bull-board/nestjs';
import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { EnvironmentVariables } from '../config/env';
import { QueueInspector } from '../queue/queue-inspector';
import { QueueInspectorModule } from '../queue/queue-inspector.module';
import { ADMIN_ROUTE, adminBasicAuth } from './admin-auth.middleware';

/**
 * The BullMQ dashboard (bull-board) at /admin/queues, in processes that serve HTTP (api, all).
 * It is mounted as Express middleware, ahead of Nest's guards: basic auth protects it instead of
 * a bearer token, and it is not rate limited. Queues are added only when the dashboard is on,
 * so a process without ADMIN_USER / ADMIN_PASSWORD opens no Redis connection for it.
 */
@Module({
  imports: [
    QueueInspectorModule,
    BullBoardModule.forRootAsync({
      inject: [EnvironmentVariables],
      useFactory: (config: EnvironmentVariables) => ({
        route: ADMIN_ROUTE,
        // @bull-board/express 9.10.1 pins its own @bull-board/api 9.10.1 while @bull-board/nestjs uses
        // 9.10.2: the classes are the same at runtime, but TypeScript sees two declarations.
        adapter: ExpressAdapter as unknown as BullBoardModuleOptions['adapter'],
        middleware: adminBasicAuth(config),
        boardOptions: { uiConfig: { boardTitle: 'Push queues' } },
      }),
    }),
  ],
})
export class AdminModule implements OnModuleInit {
  constructor(
    @InjectBullBoard() private readonly board: BullBoardInstance,
    @Inject(BULL_BOARD_ADAPTER) private readonly adapter: ExpressAdapter,
    private readonly inspector: QueueInspector,
    private readonly config: EnvironmentVariables,
  ) {}

  onModuleInit(): void {
    // The dashboard is its own Express app: it would advertise Express, which the API does not.
    this.adapter.getRouter().disable('x-powered-by');
    if (!this.config.ADMIN_USER || !this.config.ADMIN_PASSWORD) return;
    this.board.replaceQueues(this.inspector.queues().map((queue) => new BullMQAdapter(queue)));
  }
}
