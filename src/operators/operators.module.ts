import { Module } from '@nestjs/common';
import { OperatorsRepository } from './operators.repository';
import { OperatorsService } from './operators.service';

/** Operator accounts, grants, sessions' storage, invitations (docs/api.md#271-operators); used by admin and the CLI. */
@Module({ providers: [OperatorsService, OperatorsRepository], exports: [OperatorsService, OperatorsRepository] })
export class OperatorsModule {}
