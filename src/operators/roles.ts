import { OPERATOR_ROLES, type OperatorRole } from '../common/vocabulary';
import type { Grant } from './operators.repository';

const rank = (role: OperatorRole) => OPERATOR_ROLES.indexOf(role);

/** The operator's role for an app: its grant for every app or for that app, whichever is higher (docs/api.md#273-roles). */
export function roleFor(grants: readonly Grant[], appId: string): OperatorRole | null {
  let best: OperatorRole | null = null;
  for (const grant of grants) {
    if (grant.app_id !== null && grant.app_id !== appId) continue;
    if (best === null || rank(grant.role) > rank(best)) best = grant.role;
  }
  return best;
}

/** Whether the grants give at least `role` on `appId`; `null` asks for every app (a grant without app). */
export function grantsRole(grants: readonly Grant[], role: OperatorRole, appId: string | null): boolean {
  if (appId === null) return grants.some((g) => g.app_id === null && rank(g.role) >= rank(role));
  const held = roleFor(grants, appId);
  return held !== null && rank(held) >= rank(role);
}

/** Whether the grants give at least `role` on some app. */
export function grantsRoleSomewhere(grants: readonly Grant[], role: OperatorRole): boolean {
  return grants.some((g) => rank(g.role) >= rank(role));
}

/** The apps the grants reach, or `null` for every app. */
export function appsReached(grants: readonly Grant[], role: OperatorRole = 'viewer'): string[] | null {
  if (grants.some((g) => g.app_id === null && rank(g.role) >= rank(role))) return null;
  return grants.filter((g) => g.app_id !== null && rank(g.role) >= rank(role)).map((g) => g.app_id!);
}
