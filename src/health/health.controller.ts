import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/auth.decorators';
import { SchemaStatus } from '../database/schema-status';
import { QueueHealthIndicator } from './queue.health';

@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly queues: QueueHealthIndicator,
    private readonly schema: SchemaStatus,
    private readonly indicators: HealthIndicatorService,
  ) {}

  /** The process answers: for liveness probes and the image's HEALTHCHECK. */
  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /** PostgreSQL and the queue store (QUEUE_BACKEND) answer and the schema is migrated: for readiness probes and load balancers. */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () => this.database.pingCheck('database', { timeout: 1_000 }),
      () => this.queues.check(),
      () => {
        const indicator = this.indicators.check('migrations');
        return this.schema.pending.length === 0 ? indicator.up() : indicator.down({ message: this.schema.reason });
      },
    ]);
  }
}
