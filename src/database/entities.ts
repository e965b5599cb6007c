import { App } from '../apps/app.entity';
import { AppCredentials } from '../credentials/app-credentials.entity';
import { Delivery } from '../delivery/delivery.entity';
import { DeliveryMinute } from '../delivery/delivery-minute.entity';
import { MarketingReceipt } from '../delivery/marketing-receipt.entity';
import { FanOutAudienceChunk } from '../delivery/fanout-audience.entity';
import { NotificationEvent } from '../notifications/events/notification-event.entity';
import { ApiToken } from '../auth/api-token.entity';
import { Installation } from '../installations/installation.entity';
import { InstallationBadge } from '../installations/installation-badge.entity';
import { LiveActivity, LiveActivityBroadcast, LiveActivityChannel, LiveActivityUpdate } from '../live-activities/live-activity.entity';
import { InboxMessage } from '../inbox/inbox-message.entity';
import { IdempotencyKey } from '../notifications/idempotency/idempotency-key.entity';
import { Notification } from '../notifications/notification.entity';
import { WebhookMessage } from '../webhooks/webhook-message.entity';
import { Webhook } from '../webhooks/webhook.entity';
import { Topic, TopicSubscription, UserChannelPreferences } from '../topics/topic.entity';
import { TemplateVersion } from '../templates/template.entity';

/** Every entity, listed once for Nest and for the TypeORM CLI. */
export const ENTITIES = [
  App,
  ApiToken,
  Installation,
  InstallationBadge,
  Notification,
  IdempotencyKey,
  AppCredentials,
  Delivery,
  NotificationEvent,
  Webhook,
  WebhookMessage,
  DeliveryMinute,
  MarketingReceipt,
  FanOutAudienceChunk,
  LiveActivity,
  LiveActivityUpdate,
  LiveActivityChannel,
  LiveActivityBroadcast,
  Topic,
  TopicSubscription,
  UserChannelPreferences,
  InboxMessage,
  TemplateVersion,
];
