import { InitialSchema1763884800000 } from './1763884800000-InitialSchema';
import { Delivery1763971200000 } from './1763971200000-Delivery';
import { DeliveriesHotUpdates1764057600000 } from './1764057600000-DeliveriesHotUpdates';
import { IdempotencyResponseText1764100000000 } from './1764100000000-IdempotencyResponseText';
import { PartitionedDeliveries1764200000000 } from './1764200000000-PartitionedDeliveries';
import { TargetingAndTiming1764300000000 } from './1764300000000-TargetingAndTiming';
import { DeliveryUserAtFanOut1764400000000 } from './1764400000000-DeliveryUserAtFanOut';
import { Webhooks1764500000000 } from './1764500000000-Webhooks';
import { DeliveryMinutes1764600000000 } from './1764600000000-DeliveryMinutes';
import { TokenChanges1764700000000 } from './1764700000000-TokenChanges';
import { DeliveriesWithoutInstallationKey1764800000000 } from './1764800000000-DeliveriesWithoutInstallationKey';
import { AppSettings1764900000000 } from './1764900000000-AppSettings';
import { MessageKinds1765000000000 } from './1765000000000-MessageKinds';
import { Pacing1765750000000 } from './1765750000000-Pacing';
import { Audiences1765500000000 } from './1765500000000-Audiences';
import { InstallationBadges1765550000000 } from './1765550000000-InstallationBadges';
import { LiveActivities1766000000000 } from './1766000000000-LiveActivities';
import { InstallationBadgesWithoutKey1766100000000 } from './1766100000000-InstallationBadgesWithoutKey';
import { FilterSendAudiences1766200000000 } from './1766200000000-FilterSendAudiences';
import { IdempotencyKeyNotification1766300000000 } from './1766300000000-IdempotencyKeyNotification';
import { LiveActivityBroadcasts1766400000000 } from './1766400000000-LiveActivityBroadcasts';
import { FanoutAudience1766700000000 } from './1766700000000-FanoutAudience';
import { TopicsAndPreferences1766800000000 } from './1766800000000-TopicsAndPreferences';
import { HmsCredentials1767200000000 } from './1767200000000-HmsCredentials';
import { NotificationFailureReason1766600000000 } from './1766600000000-NotificationFailureReason';
import { Inbox1766900000000 } from './1766900000000-Inbox';
import { WidgetsAndProviderIds1767400000000 } from './1767400000000-WidgetsAndProviderIds';
import { InstallationDays1768100000000 } from './1768100000000-InstallationDays';
import { InboxStateIndexes1767600000000 } from './1767600000000-InboxStateIndexes';
import { QueueLimits1767700000000 } from './1767700000000-QueueLimits';
import { FairShares1767800000000 } from './1767800000000-FairShares';
import { Templates1767900000000 } from './1767900000000-Templates';
import { OperatorsAndAuditLog1768000000000 } from './1768000000000-OperatorsAndAuditLog';
import { Variants1768400000000 } from './1768400000000-Variants';
import { FanoutShares1768500000000 } from './1768500000000-FanoutShares';

/** Listed explicitly (not globbed) so the same list works from ts-jest, ts-node and dist/. */
export const MIGRATIONS = [
  InitialSchema1763884800000,
  Delivery1763971200000,
  DeliveriesHotUpdates1764057600000,
  IdempotencyResponseText1764100000000,
  PartitionedDeliveries1764200000000,
  TargetingAndTiming1764300000000,
  DeliveryUserAtFanOut1764400000000,
  Webhooks1764500000000,
  DeliveryMinutes1764600000000,
  TokenChanges1764700000000,
  DeliveriesWithoutInstallationKey1764800000000,
  AppSettings1764900000000,
  MessageKinds1765000000000,
  Audiences1765500000000,
  InstallationBadges1765550000000,
  Pacing1765750000000,
  LiveActivities1766000000000,
  InstallationBadgesWithoutKey1766100000000,
  FilterSendAudiences1766200000000,
  IdempotencyKeyNotification1766300000000,
  LiveActivityBroadcasts1766400000000,
  NotificationFailureReason1766600000000,
  FanoutAudience1766700000000,
  TopicsAndPreferences1766800000000,
  HmsCredentials1767200000000,
  Inbox1766900000000,
  WidgetsAndProviderIds1767400000000,
  InboxStateIndexes1767600000000,
  QueueLimits1767700000000,
  FairShares1767800000000,
  Templates1767900000000,
  OperatorsAndAuditLog1768000000000,
  InstallationDays1768100000000,
  Variants1768400000000,
  FanoutShares1768500000000,
];
