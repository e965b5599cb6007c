import { ApiPropertyOptional } from '@nestjs/swagger';
import { ListDeliveriesQueryDto } from '../../notifications/dto/list-deliveries.dto';
import { Optional } from '../../common/validation/framework';
import { IntLike, Str } from '../../common/validation/rules';

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
