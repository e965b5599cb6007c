import { ApiPropertyOptional } from '@nestjs/swagger';
import { Optional } from '../../common/validation/framework';
import { IntLike, Str } from '../../common/validation/rules';

export class ListNotificationsQueryDto {
  @ApiPropertyOptional({ description: "The previous page's `meta.next_cursor` (opaque)." })
  @Optional()
  @Str({ min: 1, max: 200 })
  cursor?: string;
  @ApiPropertyOptional({ default: 20, description: 'Page size.' })
  @Optional()
  @IntLike({ min: 1, max: 100 })
  limit?: string | number;
}
