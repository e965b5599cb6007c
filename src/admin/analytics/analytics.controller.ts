import { Controller, Get, Param, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../auth/auth.decorators';
import { ApiNotFound, ApiValidationErrors } from '../../common/http/api-responses';
import { InOpenApiDocument } from '../../common/http/openapi';
import { ADMIN_OPENAPI_DOCUMENT } from '../admin-openapi';
import { AdminGuard, NeedsRole } from '../admin.guard';
import { ANALYTICS_DAYS, AnalyticsService } from './analytics.service';
import { AnalyticsQueryDto, AppAnalyticsEnvelope, PlatformFunnelList } from './dto/analytics.dto';

const APP = ApiParam({ name: 'app', format: 'uuid', description: 'The app id.' });
const NOTIFICATION = ApiParam({ name: 'id', format: 'uuid', description: 'The notification id.' });
const NO_NOTIFICATION = 'No such app, or no notification with this id in it.';

/** Analytics in the dashboard (docs/api.md#analytics), for every operator. */
@InOpenApiDocument(ADMIN_OPENAPI_DOCUMENT)
@Public()
@UseGuards(AdminGuard)
@Controller('admin/api/apps/:app')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('analytics')
  @NeedsRole('viewer')
  @ApiOperation({
    summary: "An app's analytics",
    description: 'Per UTC day: installations by platform and permission, sends and their outcomes; and the opened rate by category.',
  })
  @APP
  @ApiOkResponse({ description: 'The last `days` days.', type: AppAnalyticsEnvelope })
  @ApiNotFound('No such app.')
  @ApiValidationErrors()
  async app(@Param('app') appId: string, @Query() query: AnalyticsQueryDto): Promise<AppAnalyticsEnvelope> {
    const days = query.days === undefined || query.days === null ? ANALYTICS_DAYS.default : Number(query.days);
    return { data: await this.analytics.app(appId, days) };
  }

  @Get('notifications/:id/funnel')
  @NeedsRole('viewer')
  @ApiOperation({ summary: "A send's funnel by platform", description: 'accepted → received → displayed → opened per platform, from its deliveries.' })
  @APP
  @NOTIFICATION
  @ApiOkResponse({ description: 'Per platform.', type: PlatformFunnelList })
  @ApiNotFound(NO_NOTIFICATION)
  async funnel(@Param('app') appId: string, @Param('id') id: string): Promise<PlatformFunnelList> {
    return { data: await this.analytics.funnel(appId, id) };
  }

  /** Streamed a page at a time: any size of trace, one page in memory. */
  @Get('notifications/:id/trace.csv')
  @NeedsRole('viewer')
  @ApiOperation({ summary: "A send's trace as CSV", description: 'Every delivery, one line each, in the trace’s order (docs/api.md#delivery-trace).' })
  @APP
  @NOTIFICATION
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The CSV, with a header line.', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiNotFound(NO_NOTIFICATION)
  async traceCsv(@Param('app') appId: string, @Param('id') id: string, @Res() res: Response): Promise<void> {
    await this.analytics.assertNotification(appId, id);
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="trace-${id.toLowerCase()}.csv"`);
    try {
      await this.analytics.traceCsv(appId, id, res);
    } finally {
      res.end();
    }
  }
}
