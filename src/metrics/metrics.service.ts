import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ProviderId, SkipReason } from '../common/vocabulary';

export type DeliveryMetricOutcome = 'accepted' | 'failed' | 'retried' | 'invalidated' | 'skipped';

export type WebhookCallOutcome = 'delivered' | 'retried' | 'failed';

/** Every Prometheus metric, on one registry per process; domain code records through these methods. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'pns_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly notificationsAccepted = new Counter({
    name: 'pns_notifications_accepted_total',
    help: 'Notifications accepted by the API',
    registers: [this.registry],
  });

  readonly deliveries = new Counter({
    name: 'pns_deliveries_total',
    help: 'Delivery attempts by provider and outcome',
    labelNames: ['provider', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly deliveriesSkipped = new Counter({
    name: 'pns_deliveries_skipped_total',
    help: 'Installations not attempted, by provider and skip reason',
    labelNames: ['provider', 'reason'] as const,
    registers: [this.registry],
  });

  readonly providerLatency = new Histogram({
    name: 'pns_provider_request_duration_seconds',
    help: 'Provider request latency',
    labelNames: ['provider'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly providerResponses = new Counter({
    name: 'pns_provider_responses_total',
    help: 'Provider answers by HTTP status class (none: no answer)',
    labelNames: ['provider', 'status_class'] as const,
    registers: [this.registry],
  });

  readonly audienceRefused = new Counter({
    name: 'pns_audience_refused_total',
    help: 'Audience counts and filtered browses refused with 429: AUDIENCE_CONCURRENCY or AUDIENCE_CONCURRENCY_PER_APP reached',
    registers: [this.registry],
  });

  readonly fanoutDuration = new Histogram({
    name: 'pns_fanout_duration_seconds',
    help: 'Time to fan a notification out to its installations',
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  readonly webhookCalls = new Counter({
    name: 'pns_webhook_calls_total',
    help: 'Webhook calls by event type and outcome',
    labelNames: ['event', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly queueDepth = new Gauge({
    name: 'pns_queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'] as const,
    registers: [this.registry],
  });

  readonly laneBatches = new Gauge({
    name: 'pns_lane_batches',
    help: 'Delivery batches per lane queued in the deliver queue or held behind their app window',
    labelNames: ['lane', 'state', 'app'] as const,
    registers: [this.registry],
  });

  readonly laneOldestHeldAge = new Gauge({
    name: 'pns_lane_oldest_held_age_seconds',
    help: 'Seconds the oldest batch held behind its app window has waited, per lane; 0 when none is held',
    labelNames: ['lane', 'app'] as const,
    registers: [this.registry],
  });

  readonly fanoutSends = new Gauge({
    name: 'pns_fanout_sends',
    help: 'Sends due now whose fan-out is queued or running, or held behind their app window of fan-outs',
    labelNames: ['state', 'app'] as const,
    registers: [this.registry],
  });

  readonly fanoutOldestHeldAge = new Gauge({
    name: 'pns_fanout_oldest_held_age_seconds',
    help: 'Seconds the oldest send held behind its app window of fan-outs has waited; 0 when none is held',
    labelNames: ['app'] as const,
    registers: [this.registry],
  });

  readonly queueOldestAge = new Gauge({
    name: 'pns_queue_oldest_job_age_seconds',
    help: 'Seconds the oldest waiting job of each queue has been due; 0 when none waits',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  readonly dependencyUp = new Gauge({
    name: 'pns_dependency_up',
    help: 'Whether PostgreSQL (database) or Redis (redis) answered at the last scrape, 1 or 0',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  recordDelivery(provider: ProviderId, outcome: DeliveryMetricOutcome, count = 1): void {
    if (count > 0) this.deliveries.inc({ provider, outcome }, count);
  }

  /** One provider request's HTTP status (undefined when it got no answer: timeout, refused, reset). */
  recordProviderAnswer(provider: ProviderId, status: number | undefined): void {
    this.providerResponses.inc({ provider, status_class: status && status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'none' });
  }

  recordWebhookCall(event: string, outcome: WebhookCallOutcome): void {
    this.webhookCalls.inc({ event, outcome });
  }

  recordSkipped(provider: ProviderId, reason: SkipReason, count = 1): void {
    if (count > 0) this.deliveriesSkipped.inc({ provider, reason }, count);
  }
}
