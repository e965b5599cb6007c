import { Controller, Get, Logger, NotFoundException, Req, Res, UseGuards } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { ErrorResponse } from '../common/http/api-responses';
import { InOpenApiDocument } from '../common/http/openapi';
import { ADMIN_OPENAPI_DOCUMENT } from './admin-openapi';
import { loginOrigin } from './admin.controller';
import { AdminGuard, WithoutSession } from './admin.guard';
import { afterSignIn, attemptCookie, OIDC_ATTEMPT_COOKIE } from './admin-oidc';
import { AdminOidcService, OidcSignInRefused } from './admin-oidc.service';
import { cookieValue } from './admin-session';
import { AdminSessionsService } from './admin-sessions.service';

export class OidcSettings {
  @ApiProperty({ description: 'Whether the login page offers OIDC sign-in (ADMIN_OIDC_ISSUER and its client are set).' }) enabled: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The provider\'s name for "Sign in with …" (ADMIN_OIDC_NAME, or the issuer\'s host); null when off.',
    example: 'Acme SSO',
  })
  name: string | null;
}

export class OidcSettingsEnvelope {
  @ApiProperty({ type: () => OidcSettings }) data: OidcSettings;
}

const REDIRECT = (description: string) =>
  ApiResponse({ status: 303, description, headers: { Location: { description: 'Where the browser goes next.', schema: { type: 'string' } } } });

/** OIDC sign-in to the dashboard (docs/api.md#oidc): browser navigations, not calls of the page's script; no session needed. */
@InOpenApiDocument(ADMIN_OPENAPI_DOCUMENT)
@Public()
@UseGuards(AdminGuard)
@Controller('admin/api/oidc')
export class AdminOidcController {
  private readonly logger = new Logger(AdminOidcController.name);

  constructor(
    private readonly oidc: AdminOidcService,
    private readonly sessions: AdminSessionsService,
  ) {}

  @Get()
  @WithoutSession()
  @ApiOperation({ summary: 'Whether OIDC sign-in is on', description: 'What the login page asks before it offers "Sign in with …".' })
  @ApiOkResponse({ description: "On or off, and the provider's name.", type: OidcSettingsEnvelope })
  settings(): OidcSettingsEnvelope {
    return { data: { enabled: this.oidc.enabled, name: this.oidc.name } };
  }

  @Get('start')
  @WithoutSession()
  @ApiOperation({
    summary: 'Start an OIDC sign-in',
    description:
      'Sends the browser to the provider (authorization code with PKCE S256, state and nonce); the attempt is kept in a signed cookie (`pns_oidc`, HttpOnly, 10 minutes).',
  })
  @REDIRECT('To the provider; or, when it cannot be reached, to `/admin?oidc_error=provider`.')
  @ApiNotFoundResponse({ description: 'OIDC sign-in is not configured.', type: ErrorResponse })
  async start(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.oidc.enabled) throw new NotFoundException();
    try {
      const { url, attempt } = await this.oidc.start();
      res.setHeader('Set-Cookie', attemptCookie(attempt, req.secure));
      res.redirect(303, url);
    } catch (error) {
      this.logger.warn(`OIDC provider not reached: ${(error as Error).message}`);
      res.redirect(303, afterSignIn('provider'));
    }
  }

  @Get('callback')
  @WithoutSession()
  @ApiOperation({
    summary: 'Finish an OIDC sign-in',
    description:
      "The provider's redirect back: the code exchanged, the ID token checked, the operator matched by e-mail (an admitted domain's new e-mail becomes an operator), the session cookie set. Failures count as failed logins.",
  })
  @REDIRECT('Signed in: to `/admin`, with the session cookie set; refused: to `/admin?oidc_error=<reason>`, the words on the login page.')
  @ApiNotFoundResponse({ description: 'OIDC sign-in is not configured.', type: ErrorResponse })
  async callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.oidc.enabled) throw new NotFoundException();
    const cookies = [attemptCookie(null, req.secure)];
    let to: string;
    try {
      const { token } = await this.oidc.finish(req.originalUrl, cookieValue(req.headers.cookie, OIDC_ATTEMPT_COOKIE), loginOrigin(req));
      cookies.push(this.sessions.cookie(token, req.secure));
      to = afterSignIn(null);
    } catch (error) {
      if (!(error instanceof OidcSignInRefused)) throw error;
      to = afterSignIn(error.reason);
    }
    res.setHeader('Set-Cookie', cookies);
    res.redirect(303, to);
  }
}
