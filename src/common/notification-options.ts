import { Platform } from './platform';

/**
 * The delivery options of a send (docs/api.md#send), as stored with the notification and read by the
 * worker: here, so that notifications and delivery share the type without importing each other.
 */
export interface NotificationOptions {
  ttl?: number;
  priority?: 'high' | 'normal';
  collapse_id?: string;
  badge?: number;
  sound?: string;
  platforms?: Platform[];
  /** "HH:MM": each installation's due time in its own time zone (docs/api.md#scheduling). */
  local_time?: string;
}
