import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/auth.decorators';
import { SchemaStatus } from '../database/schema-status';
import { RedisHealthIndicator } from './redis.health';

@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly schema: SchemaStatus,
    private readonly indicators: HealthIndicatorService,
  ) {}

  /** The process answers: for liveness probes and the image's HEALTHCHECK. */
  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /** PostgreSQL and Redis answer and the schema is migrated: for readiness probes and load balancers. */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () => this.database.pingCheck('database', { timeout: 1_000 }),
      () => this.redis.check('redis'),
      () => {
        const indicator = this.indicators.check('migrations');
        return this.schema.pending.length === 0 ? indicator.up() : indicator.down({ message: this.schema.reason });
      },
    ]);
  }
}
