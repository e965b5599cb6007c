import { Injectable } from '@nestjs/common';
import { isUuid } from '../common/uuid';
import { EnvironmentVariables } from '../config/env';
import { openWithAny, seal } from '../credentials/secret-box';
import { AppWithSettings, newIdentitySecret, toAppWithSettings, userIdHashMatches } from './app-settings';
import { AppRow, AppSettingsChange, AppSettingsRow, AppsRepository, DeletedCounts } from './apps.repository';

/** Sealed for their app and slot: a value copied elsewhere will not open. */
const identityContext = (appId: string, column: 'identity_secret_enc' | 'identity_secret_previous_enc') => `apps:${appId}:${column}`;

export interface AppSummary {
  id: string;
  name: string;
  created_at: string;
}

const summary = (row: AppRow): AppSummary => ({ id: row.id, name: row.name, created_at: row.created_at.toISOString() });

@Injectable()
export class AppsService {
  constructor(
    private readonly apps: AppsRepository,
    private readonly config: EnvironmentVariables,
  ) {}

  async create(name: string): Promise<AppSummary> {
    return summary(await this.apps.insert(name));
  }

  async list(): Promise<AppSummary[]> {
    return (await this.apps.list()).map(summary);
  }

  /** With everything it owns (AppsRepository.delete). */
  async delete(id: string): Promise<(AppSummary & { deleted: DeletedCounts }) | null> {
    if (!isUuid(id)) return null;
    const row = await this.apps.delete(id);
    if (!row) return null;
    const { tokens, installations, notifications, deliveries } = row;
    return { ...summary(row), deleted: { tokens, installations, notifications, deliveries } };
  }

  async find(id: string): Promise<AppSummary | null> {
    if (!isUuid(id)) return null;
    const row = await this.apps.find(id);
    return row ? summary(row) : null;
  }

  async settings(id: string): Promise<AppWithSettings | null> {
    if (!isUuid(id)) return null;
    const row = await this.apps.settings(id);
    return row ? toAppWithSettings(row) : null;
  }

  async updateSettings(
    id: string,
    change: {
      frequency_cap?: AppSettingsChange['frequencyCap'];
      quiet_hours?: AppSettingsChange['quietHours'];
      identity_verification?: boolean;
      inbox_days?: number;
    },
  ): Promise<AppWithSettings | null> {
    if (!isUuid(id)) return null;
    const row = await this.apps.updateSettings(id, {
      frequencyCap: change.frequency_cap,
      quietHours: change.quiet_hours,
      identityVerification: change.identity_verification,
      inboxDays: change.inbox_days,
    });
    return row ? toAppWithSettings(row) : null;
  }

  /** Made on first use; `rotate` keeps the current one valid as the previous until `revokePrevious`. */
  async identitySecret(id: string, options: { rotate?: boolean; revokePrevious?: boolean }): Promise<{ secret: string } | null> {
    if (!isUuid(id)) return null;
    let secret = '';
    const row = await this.apps.changeIdentitySecrets(id, (current) => {
      const sealedCurrent = current.identity_secret_enc;
      const previous = options.revokePrevious ? null : current.identity_secret_previous_enc;
      if (sealedCurrent && !options.rotate) {
        secret = this.open(id, 'identity_secret_enc', sealedCurrent);
        return options.revokePrevious ? { current: sealedCurrent, previous: null } : null;
      }
      secret = newIdentitySecret();
      const demoted = sealedCurrent
        ? seal(this.open(id, 'identity_secret_enc', sealedCurrent), identityContext(id, 'identity_secret_previous_enc'), this.config.APP_KEY)
        : previous;
      return { current: seal(secret, identityContext(id, 'identity_secret_enc'), this.config.APP_KEY), previous: demoted };
    });
    return row ? { secret } : null;
  }

  /** Why the app refuses this `user_id` without `installations:identify` (docs/api.md "Identity verification"). */
  async userIdHashProblem(appId: string, userId: string, hash: string | undefined): Promise<'missing' | 'mismatch' | null> {
    const row = await this.apps.settings(appId);
    if (!row?.identity_verification) return null;
    if (hash === undefined || hash === null) return 'missing';
    return userIdHashMatches(this.identitySecrets(row), userId, hash) ? null : 'mismatch';
  }

  private identitySecrets(row: AppSettingsRow): string[] {
    const secrets: string[] = [];
    if (row.identity_secret_enc) secrets.push(this.open(row.id, 'identity_secret_enc', row.identity_secret_enc));
    if (row.identity_secret_previous_enc) secrets.push(this.open(row.id, 'identity_secret_previous_enc', row.identity_secret_previous_enc));
    return secrets;
  }

  private open(appId: string, column: 'identity_secret_enc' | 'identity_secret_previous_enc', sealed: string): string {
    const keys = this.config.APP_KEY_PREVIOUS ? [this.config.APP_KEY, this.config.APP_KEY_PREVIOUS] : [this.config.APP_KEY];
    return openWithAny(sealed, identityContext(appId, column), keys).plaintext;
  }
}
