import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/time';
import { pickWinner, winnerAfterMs } from '../../common/variants';
import { AbDecisionJobs, DeliverJobs } from '../../queue/jobs';
import { AbTestsRepository } from './ab-tests.repository';

/** Decisions looked at per run of the sweeper or a decision job. */
const DUE_PER_RUN = 100;

/**
 * The A/B test with a winner (docs/api.md#a-b-test-with-a-winner): the decision is stored as a due
 * time when the sample's fan-out starts, taken by a delayed job on the maintenance queue and by every
 * sweep (so a lost job or a killed worker only delays it), and made once by a conditional UPDATE.
 */
@Injectable()
export class AbTestsService {
  private readonly logger = new Logger('AbTests');

  constructor(
    private readonly abTests: AbTestsRepository,
    private readonly deliverJobs: DeliverJobs,
    private readonly decisionJobs: AbDecisionJobs,
    private readonly clock: Clock,
  ) {}

  /** At the sample's fan-out start: the decision's due time, winner_after from that start, stored once and queued. */
  async scheduleDecision(
    notificationId: string,
    started: { processing_started_at: Date; ab_due_at: Date | null; options: { ab_test?: { winner_after: string } } | null },
  ): Promise<void> {
    const after = winnerAfterMs(started.options?.ab_test?.winner_after ?? '');
    if (after === null) return;
    const due = started.ab_due_at ?? (await this.abTests.setDue(notificationId, new Date(started.processing_started_at.getTime() + after)));
    if (!due) return;
    await this.decisionJobs
      .add(notificationId, due.getTime() - this.clock.now())
      .catch((error: Error) => this.logger.warn(`A/B decision of ${notificationId} not queued (${error.message}); the sweeper will decide it.`));
  }

  /** Decides every test due at `now` (the clock's, unless a test gives it); answers the ids decided. */
  async decideDue(now = new Date(this.clock.now())): Promise<string[]> {
    const decided: string[] = [];
    for (const id of await this.abTests.due(now, DUE_PER_RUN)) {
      if (await this.decide(id, now)) decided.push(id);
    }
    return decided;
  }

  /** Picks the winner from the sample's figures and, if this call is the one that decides, queues the rest's batches. */
  async decide(notificationId: string, now: Date): Promise<boolean> {
    const test = await this.abTests.find(notificationId);
    if (!test) return false;
    const tallies = await this.abTests.tallies(notificationId, test.metric);
    const byVariant = test.variants.map((_variant, index) => tallies.find((t) => t.variant === index) ?? { accepted: 0, metric: 0 });
    const winner = pickWinner(byVariant);
    const { decided, batches } = await this.abTests.decide(notificationId, test.variants[winner].key, winner, now);
    if (!decided) return false;
    this.logger.log(`A/B test of notification ${notificationId}: ${test.variants[winner].key} won; ${batches.length} batches to the rest`);
    // A fresh id per batch: the sample's job of a batch number may still sit completed. Jobs lost here are owed and requeued by the sweeper.
    await this.deliverJobs.addBatches(
      batches.map((batch) => ({ notificationId, batch })),
      'winner',
    );
    return true;
  }
}
