import { randomBytes, randomUUID } from 'node:crypto';
import { AppsService } from '../../src/apps/apps.service';
import { Ability } from '../../src/auth/abilities';
import { TokensService } from '../../src/auth/tokens.service';
import type { TestContext } from './create-test-app';

export interface TestTenant {
  appId: string;
  /** a token holding every ability */
  token: string;
}

export async function newApp(ctx: TestContext, name = 'Test app'): Promise<TestTenant> {
  const app = await ctx.get(AppsService).create(name);
  return { appId: app.id, token: await newToken(ctx, app.id, ['*']) };
}

export async function newToken(ctx: TestContext, appId: string, abilities: (Ability | '*')[], extra: { expiresInDays?: number } = {}): Promise<string> {
  return (await ctx.get(TokensService).create({ appId, abilities, ...extra })).token;
}

export const apnsToken = () => randomBytes(32).toString('hex');
export const fcmToken = () => `fcm-${randomBytes(60).toString('base64url')}`;
export const hmsToken = () => `IQAAAAC${randomBytes(96).toString('base64url')}`;
export const installationId = () => `inst-${randomUUID()}`;

/** Registers an installation through the API (PUT) and returns its resource. */
export async function newInstallation(
  ctx: TestContext,
  token: string,
  body: Record<string, unknown> = {},
  id = installationId(),
): Promise<Record<string, any>> {
  const res = await ctx
    .http()
    .put(`/api/v1/installations/${encodeURIComponent(id)}`)
    .set('Authorization', `Bearer ${token}`)
    .send({ platform: 'ios', push_token: apnsToken(), ...body });
  if (res.status !== 201) throw new Error(`newInstallation: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
