import { Body, Controller, Get, Headers, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthContext } from '../auth/auth-context';
import { CurrentAuth } from '../auth/auth.decorators';
import { ApiJsonBodyErrors, ApiNotFound, ApiValidationErrors } from '../common/http/api-responses';
import { InboxMessageEnvelope, InboxPage, ListInboxQueryDto, MarkInboxMessageDto, ReadAllEnvelope } from './dto/inbox.dto';
import { USER_ID_PARAM, UserIdPipe, UserRoute } from '../users/user-access';
import { InboxService } from './inbox.service';

const NOT_FOUND = 'No such message of this user in the calling app (or it expired).';

/** A user's inbox (docs/api.md#inbox). */
@ApiTags('inbox')
@UserRoute()
@Controller(`api/v1/users/:${USER_ID_PARAM}/inbox`)
export class InboxController {
  constructor(private readonly inbox: InboxService) {}

  @Get()
  @ApiOperation({ summary: "List a user's inbox", description: 'Newest first, cursor paginated; `meta.unread` counts the unread messages.' })
  @ApiOkResponse({ description: 'One page.', type: InboxPage })
  @ApiValidationErrors('A bad `state`, `limit` or `cursor`.')
  list(@CurrentAuth() auth: AuthContext, @Param(USER_ID_PARAM, UserIdPipe) userId: string, @Query() query: ListInboxQueryDto) {
    return this.inbox.list(auth.appId, userId, query.state ?? 'inbox', query.limit === undefined ? 20 : Number(query.limit), query.cursor);
  }

  @Post('read-all')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mark every unread message read' })
  @ApiOkResponse({ description: 'How many were marked.', type: ReadAllEnvelope })
  async readAll(@CurrentAuth() auth: AuthContext, @Param(USER_ID_PARAM, UserIdPipe) userId: string) {
    return { data: await this.inbox.readAll(auth.appId, userId) };
  }

  @Get('stream')
  @ApiOperation({
    summary: "Stream a user's inbox",
    description:
      '`text/event-stream`: `message` events (an InboxMessage, its id as the event id), `unread` events (`{"unread": n}`), and a comment line at least every 30 s. ' +
      'Reconnecting with `Last-Event-ID` first sends the messages stored after that one.',
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'The id of the last `message` event received.' })
  @ApiOkResponse({ description: 'The stream, open until the client or the server closes it.' })
  async stream(
    @CurrentAuth() auth: AuthContext,
    @Param(USER_ID_PARAM, UserIdPipe) userId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    await this.inbox.stream(auth.appId, userId, res, lastEventId);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Mark a message read, unread, archived or back in the inbox' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiBody({
    type: MarkInboxMessageDto,
    examples: { read: { summary: 'Read', value: { read: true } }, archive: { summary: 'Archive', value: { archived: true } } },
  })
  @ApiOkResponse({ description: 'The message as it is now.', type: InboxMessageEnvelope })
  @ApiJsonBodyErrors()
  @ApiNotFound(NOT_FOUND)
  async mark(@CurrentAuth() auth: AuthContext, @Param(USER_ID_PARAM, UserIdPipe) userId: string, @Param('id') id: string, @Body() dto: MarkInboxMessageDto) {
    return { data: await this.inbox.mark(auth.appId, userId, id, dto) };
  }
}
