import { Module } from '@nestjs/common';
import { QueueInspector } from './queue-inspector';

/** One set of read-side queue handles per process, shared by the metrics sampler and the dashboard. */
@Module({ providers: [QueueInspector], exports: [QueueInspector] })
export class QueueInspectorModule {}
