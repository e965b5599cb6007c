import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { ValidationFailedError } from '../common/errors';
import type { OperatorRole } from '../common/vocabulary';
import { Grant, OperatorRow, OperatorsRepository } from './operators.repository';
import { hashPassword, MIN_PASSWORD_LENGTH, passwordMatches } from './passwords';

/** An invitation link is good this long, and once. */
export const INVITATION_DAYS = 7;
/** The page an invitation link opens; the token after `#`, so no server or proxy log holds it. */
export const INVITATION_PATH = '/admin/invitation';

export const EMAIL = /^[^\s@:]{1,64}@[^\s@:]{1,253}$/;

/** An operator as the dashboard and the CLI show it: never a hash or a token. */
export interface OperatorResource {
  id: string;
  email: string;
  grants: Grant[];
  bootstrap: boolean;
  password_set: boolean;
  disabled_at: string | null;
  created_at: string;
}

export const operatorResource = (row: OperatorRow): OperatorResource => ({
  id: row.id,
  email: row.email,
  grants: row.grants,
  bootstrap: row.bootstrap,
  password_set: row.has_password,
  disabled_at: row.disabled_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
});

/** A one-time link (`path#token`; the origin is the dashboard's) and when it stops working. */
export interface Invitation {
  link: string;
  expires_at: string;
}

/** One-way hash of a random token (invitation, session): what the database holds instead of it. */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest();

/** Operator accounts (docs/api.md#271-operators): the rules; the SQL is OperatorsRepository's. */
@Injectable()
export class OperatorsService {
  constructor(private readonly repository: OperatorsRepository) {}

  list(): Promise<OperatorResource[]> {
    return this.repository.list().then((rows) => rows.map(operatorResource));
  }

  async find(id: string): Promise<OperatorResource | null> {
    const row = await this.repository.find(id);
    return row && operatorResource(row);
  }

  async findByEmail(email: string): Promise<OperatorResource | null> {
    const row = await this.repository.findByEmail(email);
    return row && operatorResource(row);
  }

  /** A new operator with its grants and a one-time invitation (`path#token`) to set a password. */
  async create(email: string, grants: Grant[], now = new Date()): Promise<{ operator: OperatorResource; invitation: Invitation }> {
    const id = await this.repository.insert(email, grants);
    if (id === null) throw ValidationFailedError.of('email', 'An operator with this e-mail exists.');
    const invitation = await this.invite(id, now);
    return { operator: (await this.find(id))!, invitation };
  }

  /** A new one-time link for the operator; earlier unused ones stay good until they expire. */
  async invite(operatorId: string, now = new Date()): Promise<Invitation> {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 86_400_000);
    await this.repository.insertInvitation(tokenHash(token), operatorId, expiresAt);
    return { link: `${INVITATION_PATH}#${token}`, expires_at: expiresAt.toISOString() };
  }

  /** Sets the invited operator's password; an invitation works once. */
  async acceptInvitation(token: string, password: string): Promise<OperatorResource> {
    if (password.length < MIN_PASSWORD_LENGTH)
      throw ValidationFailedError.of('password', `The password field must be at least ${MIN_PASSWORD_LENGTH} characters.`);
    const hash = await hashPassword(password);
    const id = await this.repository.acceptInvitation(tokenHash(token), hash);
    if (id === null) throw ValidationFailedError.of('token', 'This invitation is unknown, used or expired.');
    return (await this.find(id))!;
  }

  /** The enabled operator whose password this is; null otherwise (as long either way). */
  async withPassword(email: string, password: string): Promise<OperatorResource | null> {
    const row = EMAIL.test(email) ? await this.repository.findByEmail(email) : null;
    const ok = await passwordMatches(row?.password_hash ?? null, password);
    return ok && row && row.disabled_at === null ? operatorResource(row) : null;
  }

  /** The enabled operator with this e-mail, or, when its domain was allowed, a new one with the domain's role (OIDC sign-in). */
  async forSignIn(email: string): Promise<{ operator: OperatorResource; created: boolean } | null> {
    const row = await this.repository.findByEmail(email);
    if (row) return row.disabled_at === null ? { operator: operatorResource(row), created: false } : null;
    const role = await this.repository.domain(email.slice(email.lastIndexOf('@') + 1));
    if (role === null) return null;
    const id = await this.repository.insert(email, [{ app_id: null, role }]);
    // Created meanwhile by another sign-in: found this time.
    if (id === null) return this.forSignIn(email);
    return { operator: (await this.find(id))!, created: true };
  }

  bootstrap(user: string): Promise<string> {
    return this.repository.upsertBootstrap(user);
  }

  async setGrants(operatorId: string, grants: Grant[]): Promise<OperatorResource | null> {
    if (!(await this.repository.find(operatorId))) return null;
    await this.repository.setGrants(operatorId, grants);
    return this.find(operatorId);
  }

  async disable(operatorId: string): Promise<OperatorResource | null> {
    return (await this.repository.disable(operatorId)) ? this.find(operatorId) : null;
  }

  domains() {
    return this.repository.domains();
  }

  allowDomain(domain: string, role: OperatorRole): Promise<void> {
    return this.repository.allowDomain(domain, role);
  }

  removeDomain(domain: string): Promise<boolean> {
    return this.repository.removeDomain(domain);
  }
}
