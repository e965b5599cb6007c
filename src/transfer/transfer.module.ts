import { Module } from '@nestjs/common';
import { ExportService } from './export.service';
import { ImportService } from './import.service';
import { TransferRepository } from './transfer.repository';

/** Moving installations in and out (docs/api.md#import, #export): used by the CLI only. */
@Module({
  providers: [TransferRepository, ImportService, ExportService],
  exports: [ImportService, ExportService],
})
export class TransferModule {}
