import { ApiProperty } from '@nestjs/swagger';
import { RECIPIENT_KINDS } from '../../common/vocabulary';
import { ExactlyOneOf, Nested } from '../../common/validation/rules';
import { RequiredNaming } from '../../common/validation/framework';
import { RecipientsDto, RECIPIENTS_MESSAGE } from './send-notification.dto';

/** POST /api/v1/audiences/count: the recipients of a send, validated as a send's (docs/api.md#count-an-audience). */
export class CountAudienceDto {
  @RequiredNaming('user_ids') @Nested(() => RecipientsDto) @ExactlyOneOf(RECIPIENT_KINDS, RECIPIENTS_MESSAGE) recipients: RecipientsDto;
}

export class AudiencePlatforms {
  @ApiProperty({ type: 'integer', example: 1200 }) ios: number;
  @ApiProperty({ type: 'integer', example: 3400 }) android: number;
  @ApiProperty({ type: 'integer', example: 0 }) web: number;
  @ApiProperty({ type: 'integer', example: 0 }) huawei: number;
}

export class AudienceCount {
  @ApiProperty({ type: 'integer', description: 'Live installations the recipients select.', example: 4600 }) installations: number;
  @ApiProperty({ type: 'integer', description: 'Of these, those a send would deliver to: not denied, not invalidated, with a token.', example: 4420 })
  sendable: number;
  @ApiProperty({ type: 'integer', description: 'Distinct user ids among the installations.', example: 3900 }) users: number;
  @ApiProperty({ type: () => AudiencePlatforms, description: 'The installations by platform.' }) platforms: AudiencePlatforms;
}

export class AudienceCountEnvelope {
  @ApiProperty({ type: () => AudienceCount }) data: AudienceCount;
}
