import { Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { EnvironmentVariables, LOOPBACK_HOST } from '../config/env';
import type { OidcSignInError } from '../common/vocabulary';
import { AdminSession } from './admin-session';
import { AdminLoginRefused, AdminSessionsService, LoginOrigin } from './admin-sessions.service';
import { attemptKey, OIDC_ATTEMPT_SECONDS, OidcAttempt, openAttempt, redirectUri, sealAttempt, signInEmail } from './admin-oidc';

/** A refused sign-in: the reason the login page puts in words. */
export class OidcSignInRefused extends Error {
  constructor(readonly reason: OidcSignInError) {
    super(`OIDC sign-in refused: ${reason}`);
  }
}

/**
 * OIDC sign-in to the dashboard (docs/api.md#oidc): the authorization code flow with PKCE (S256),
 * state and nonce, through openid-client; the e-mail of the checked ID token is matched to an
 * operator (OperatorsService.forSignIn) and the password login's session is opened.
 */
@Injectable()
export class AdminOidcService {
  private readonly logger = new Logger(AdminOidcService.name);
  private readonly key: Buffer;
  private discovered: Promise<oidc.Configuration> | null = null;

  constructor(
    private readonly config: EnvironmentVariables,
    private readonly sessions: AdminSessionsService,
  ) {
    this.key = attemptKey(config.APP_KEY);
  }

  /** On when the dashboard is and the provider is configured (config/env.ts checks the rest). */
  get enabled(): boolean {
    return this.sessions.enabled && this.config.ADMIN_OIDC_ISSUER !== undefined;
  }

  /** The button's "Sign in with <name>". */
  get name(): string | null {
    if (!this.enabled) return null;
    return this.config.ADMIN_OIDC_NAME ?? new URL(this.config.ADMIN_OIDC_ISSUER!).host;
  }

  /** The provider's metadata, read once (again after a failure). */
  private configuration(): Promise<oidc.Configuration> {
    if (!this.discovered) {
      const { ADMIN_OIDC_ISSUER: issuer, ADMIN_OIDC_CLIENT_ID: clientId, ADMIN_OIDC_CLIENT_SECRET: secret } = this.config;
      const url = new URL(issuer!);
      // http only for a provider on loopback (config/env.ts refuses it elsewhere).
      const insecure = url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname);
      this.discovered = oidc.discovery(
        url,
        clientId!,
        undefined,
        oidc.ClientSecretBasic(secret),
        insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
      );
      this.discovered.catch(() => {
        this.discovered = null;
      });
    }
    return this.discovered;
  }

  /** The provider's authorization URL for a new attempt, and the attempt's sealed cookie value. */
  async start(now = new Date()): Promise<{ url: string; attempt: string }> {
    const config = await this.configuration();
    const attempt: OidcAttempt = {
      verifier: oidc.randomPKCECodeVerifier(),
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      expires: Math.floor(now.getTime() / 1000) + OIDC_ATTEMPT_SECONDS,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri(this.config.PUBLIC_URL!),
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(attempt.verifier),
      code_challenge_method: 'S256',
      state: attempt.state,
      nonce: attempt.nonce,
    });
    return { url: url.href, attempt: sealAttempt(this.key, attempt) };
  }

  /**
   * The provider's answer (`callbackPath`: the path and query it redirected to) with the attempt's cookie: the code
   * exchanged, the ID token checked (issuer, audience, nonce, expiry), its e-mail matched, a session opened. Failures
   * count against the address (and the account, once known) as password logins do.
   */
  async finish(callbackPath: string, cookie: string | undefined, origin: LoginOrigin): Promise<{ token: string; session: AdminSession }> {
    if ((await this.sessions.loginBlockedFor(origin)) > 0) throw new OidcSignInRefused('throttled');
    try {
      const attempt = openAttempt(this.key, cookie);
      if (!attempt) throw new OidcSignInRefused('attempt');
      const current = new URL(callbackPath, this.config.PUBLIC_URL);
      if (current.searchParams.get('state') !== attempt.state) throw new OidcSignInRefused('attempt');
      let claims: { email?: unknown; email_verified?: unknown };
      try {
        const config = await this.configuration();
        const tokens = await oidc.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: attempt.verifier,
          expectedState: attempt.state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
        });
        const idToken = tokens.claims()!;
        claims = idToken as { email?: unknown; email_verified?: unknown };
        // Some providers put the e-mail only in the userinfo answer (OIDC Core 5.4): asked for the same subject.
        if (idToken.email === undefined) claims = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
      } catch (error) {
        this.logger.warn(`OIDC sign-in failed at the provider: ${(error as Error).message}`);
        throw new OidcSignInRefused('provider');
      }
      const found = signInEmail(claims);
      if ('error' in found) throw new OidcSignInRefused(found.error);
      return await this.sessions.signIn(found.email, origin);
    } catch (error) {
      if (error instanceof AdminLoginRefused) throw new OidcSignInRefused(error.getStatus() === 429 ? 'throttled' : 'refused');
      // A forged or stale attempt, a provider's refusal: counted against the address.
      if (error instanceof OidcSignInRefused) {
        try {
          await this.sessions.countFailure(origin);
        } catch (blocked) {
          if (blocked instanceof AdminLoginRefused) throw new OidcSignInRefused('throttled');
          throw blocked;
        }
      }
      throw error;
    }
  }
}
