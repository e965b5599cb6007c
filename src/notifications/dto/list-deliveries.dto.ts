import { ApiPropertyOptional } from '@nestjs/swagger';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../common/vocabulary';
import { Optional } from '../../common/validation/framework';
import { In, IntLike, Str } from '../../common/validation/rules';
import { TRACE_SCAN_ROWS } from '../trace/delivery-trace.service';

/** The delivery trace's query (docs/api.md#delivery-trace). */
export class ListDeliveriesQueryDto {
  @ApiPropertyOptional({ description: "The previous page's `meta.next_cursor` (opaque)." })
  @Optional()
  @Str({ min: 1, max: 200 })
  cursor?: string;
  @ApiPropertyOptional({ default: 100, description: 'Entries per page, at most.' })
  @Optional()
  @IntLike({ min: 1, max: 1000 })
  limit?: string | number;
  @ApiPropertyOptional({
    description: `Only the deliveries in this status. A page then looks at up to ${TRACE_SCAN_ROWS.toLocaleString('en')} deliveries and may hold fewer entries than \`limit\`, even none: follow \`next_cursor\` until it is null.`,
  })
  @Optional()
  @In(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}
