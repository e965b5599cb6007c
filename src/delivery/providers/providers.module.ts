import { Module } from '@nestjs/common';
import { WebPushHosts } from '../../common/web-push-hosts';
import { EnvironmentVariables } from '../../config/env';
import { ApnsProvider } from './apns.provider';
import { CredentialsCheckService } from './credentials-check.service';
import { FcmProvider } from './fcm.provider';
import { HmsProvider } from './hms.provider';
import { PUSH_PROVIDERS, PushProvider } from './push-provider';
import { WebPushProvider } from './web-push.provider';

/**
 * The four delivery providers, also injectable together as `PUSH_PROVIDERS` (PushProvider[]) so
 * the delivery code can pick one by `platform` without naming them.
 */
@Module({
  providers: [
    {
      provide: WebPushHosts,
      useFactory: (config: EnvironmentVariables) => WebPushHosts.fromSetting(config.WEB_PUSH_ALLOWED_HOSTS),
      inject: [EnvironmentVariables],
    },
    ApnsProvider,
    FcmProvider,
    WebPushProvider,
    HmsProvider,
    CredentialsCheckService,
    {
      provide: PUSH_PROVIDERS,
      useFactory: (apns: ApnsProvider, fcm: FcmProvider, web: WebPushProvider, hms: HmsProvider): PushProvider[] => [apns, fcm, web, hms],
      inject: [ApnsProvider, FcmProvider, WebPushProvider, HmsProvider],
    },
  ],
  exports: [ApnsProvider, FcmProvider, WebPushProvider, HmsProvider, PUSH_PROVIDERS, CredentialsCheckService],
})
export class ProvidersModule {}
