import { Module } from '@nestjs/common';
import { QueueInspector } from './queue-inspector';

@Module({ providers: [QueueInspector], exports: [QueueInspector] })
export class QueueInspectorModule {}
