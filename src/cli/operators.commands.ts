import { Command, CommandRunner, Option } from 'nest-commander';
import { AppsService } from '../apps/apps.service';
import { AuditLog, cliActor } from '../audit/audit-log.service';
import { ValidationFailedError } from '../common/errors';
import { isUuid } from '../common/uuid';
import { OPERATOR_ROLES, type OperatorRole } from '../common/vocabulary';
import { EMAIL, INVITATION_PATH, OperatorsService } from '../operators/operators.service';
import { CliError, printJson } from './cli-error';

@Command({
  name: 'operators:create',
  description: `Create a dashboard operator; prints a one-time link (${INVITATION_PATH}#..., on the dashboard's address) to set a password`,
})
export class OperatorsCreateCommand extends CommandRunner {
  constructor(
    private readonly apps: AppsService,
    private readonly operators: OperatorsService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: { email: string; role: OperatorRole; app?: string[] }): Promise<void> {
    for (const app of options.app ?? []) if (!(await this.apps.find(app))) throw new CliError(`App ${app} not found`);
    const grants = options.app?.length ? [...new Set(options.app)].map((app) => ({ app_id: app, role: options.role })) : [{ app_id: null, role: options.role }];
    try {
      const { operator, invitation } = await this.operators.create(options.email, grants);
      await this.audit.record(cliActor(), { action: 'operator.create', target: operator.email, details: { operator_id: operator.id, grants } });
      printJson({ ...operator, invitation });
    } catch (error) {
      if (error instanceof ValidationFailedError) throw new CliError(Object.values(error.errors).flat().join(' '));
      throw error;
    }
  }

  @Option({ flags: '--email <email>', description: "the operator's e-mail (their login, and how OIDC finds them)", required: true })
  parseEmail(value: string): string {
    if (!EMAIL.test(value)) throw new CliError('--email must be an e-mail address');
    return value;
  }

  @Option({ flags: '--role <role>', description: OPERATOR_ROLES.join('|'), required: true })
  parseRole(value: string): OperatorRole {
    if (!(OPERATOR_ROLES as readonly string[]).includes(value)) throw new CliError(`--role must be one of ${OPERATOR_ROLES.join(', ')}`);
    return value as OperatorRole;
  }

  @Option({ flags: '--app <id>', description: 'the role for this app only (repeatable); without it, for every app' })
  parseApp(value: string, previous: string[] = []): string[] {
    if (!isUuid(value)) throw new CliError('--app must be an app id');
    return [...previous, value];
  }
}

@Command({ name: 'operators:list', description: 'List dashboard operators and their roles (never a password)' })
export class OperatorsListCommand extends CommandRunner {
  constructor(private readonly operators: OperatorsService) {
    super();
  }

  async run(): Promise<void> {
    printJson(await this.operators.list());
  }
}

@Command({ name: 'operators:disable', description: 'Disable an operator at once: their sessions end and they can no longer log in' })
export class OperatorsDisableCommand extends CommandRunner {
  constructor(
    private readonly operators: OperatorsService,
    private readonly audit: AuditLog,
  ) {
    super();
  }

  async run(_params: string[], options: { id?: string; email?: string }): Promise<void> {
    if (!options.id === !options.email) throw new CliError('Give --id or --email');
    const found = options.id ? (isUuid(options.id) ? await this.operators.find(options.id) : null) : await this.operators.findByEmail(options.email!);
    const operator = found && (await this.operators.disable(found.id));
    if (!operator) throw new CliError(`Operator ${options.id ?? options.email} not found`);
    await this.audit.record(cliActor(), { action: 'operator.disable', target: operator.email, details: { operator_id: operator.id } });
    printJson(operator);
  }

  @Option({ flags: '--id <id>', description: 'operator id' })
  parseId(value: string): string {
    return value;
  }

  @Option({ flags: '--email <email>', description: 'operator e-mail' })
  parseEmail(value: string): string {
    return value;
  }
}
