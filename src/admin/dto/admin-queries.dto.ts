import { ListDeliveriesQueryDto } from '../../notifications/dto/list-deliveries.dto';
import { Optional } from '../../common/validation/framework';
import { IntLike, Str } from '../../common/validation/rules';

/** GET /admin/api/apps/{app}/notifications (docs/operations.md "Operator dashboard"). */
export class AdminNotificationsQueryDto {
  @Optional() @Str({ min: 1, max: 200 }) cursor?: string;
  @Optional() @IntLike({ min: 1, max: 100 }) limit?: string | number;
  /** Part of the title, any case. */
  @Optional() @Str({ max: 200 }) search?: string;
}

/** GET /admin/api/apps/{app}/installations: one of the two. */
export class AdminInstallationsQueryDto {
  @Optional() @Str({ min: 1, max: 255 }) installation_id?: string;
  @Optional() @Str({ min: 1, max: 255 }) user_id?: string;
}

/** GET /admin/api/apps/{app}/notifications/{id}/deliveries: the API's trace query, plus a reason. */
export class AdminDeliveriesQueryDto extends ListDeliveriesQueryDto {
  /** A reason exactly as the trace shows it (`BadDeviceToken`, `NoCredentials`...). */
  @Optional() @Str({ min: 1, max: 255 }) reason?: string;
}
