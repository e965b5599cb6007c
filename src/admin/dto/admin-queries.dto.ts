import { ApiPropertyOptional } from '@nestjs/swagger';
import { ListDeliveriesQueryDto } from '../../notifications/dto/list-deliveries.dto';
import { Optional } from '../../common/validation/framework';
import { Instant, Int, IntLike, Str } from '../../common/validation/rules';
import { AudienceFilter, type FilterNode } from '../../common/audience-filter';

/** GET /admin/api/apps/{app}/notifications (docs/operations.md "Operator dashboard"). */
export class AdminNotificationsQueryDto {
  @ApiPropertyOptional({ description: "The previous page's `meta.next_cursor` (opaque)." })
  @Optional()
  @Str({ min: 1, max: 200 })
  cursor?: string;
  @ApiPropertyOptional({ default: 20, description: 'Notifications per page, at most.' })
  @Optional()
  @IntLike({ min: 1, max: 100 })
  limit?: string | number;
  @ApiPropertyOptional({ description: 'Only the notifications whose title contains this, in any case.' })
  @Optional()
  @Str({ max: 200 })
  search?: string;
  @ApiPropertyOptional({ description: 'Only the notifications created before this instant: a jump to a date.', example: '2026-11-22T00:00:00.000Z' })
  @Optional()
  @Instant()
  before?: string;
}

/** GET /admin/api/apps/{app}/installations: one of the two. */
export class AdminInstallationsQueryDto {
  @ApiPropertyOptional({ description: "The client's installation id (not with `user_id`)." })
  @Optional()
  @Str({ min: 1, max: 255 })
  installation_id?: string;
  @ApiPropertyOptional({ description: "A user's installations (not with `installation_id`)." })
  @Optional()
  @Str({ min: 1, max: 255 })
  user_id?: string;
}

/** GET /admin/api/apps/{app}/notifications/{id}/deliveries: the API's trace query, plus a reason. */
export class AdminDeliveriesQueryDto extends ListDeliveriesQueryDto {
  // The dashboard's own page size (AdminService.deliveries).
  @ApiPropertyOptional({ type: 'integer', default: 50 })
  declare limit?: string | number;
  @ApiPropertyOptional({ description: 'Only the deliveries with this reason, exactly as the trace shows it (`BadDeviceToken`, `NoCredentials`...).' })
  @Optional()
  @Str({ min: 1, max: 255 })
  reason?: string;
}

/** POST /admin/api/apps/{app}/installations/browse: a page of installations, filtered as a send's `recipients.filter`. */
export class AdminBrowseInstallationsDto {
  @ApiPropertyOptional({ description: 'docs/api.md#audience-filters; absent: every live installation.' })
  @Optional()
  @AudienceFilter()
  filter?: FilterNode | null;
  @ApiPropertyOptional({ description: "The previous page's `meta.next_cursor`: the installation_id to continue after." })
  @Optional()
  @Str({ min: 1, max: 255 })
  cursor?: string | null;
  @ApiPropertyOptional({ default: 50, description: 'Installations per page, at most.' })
  @Optional()
  @Int({ min: 1, max: 100 })
  limit?: number | null;
}
