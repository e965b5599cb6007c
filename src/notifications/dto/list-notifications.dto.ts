import { ApiPropertyOptional } from '@nestjs/swagger';
import { IntLike, Optional, Str } from '../../common/validation/rules';

export class ListNotificationsQueryDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: "The previous page's `meta.next_cursor`." })
  @Optional() @Str({ min: 1, max: 200 }) cursor?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Page size.' })
  @Optional() @IntLike({ min: 1, max: 100 }) limit?: string | number;
}
