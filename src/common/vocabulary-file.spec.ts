import { dashboardVocabulary, storedDashboardVocabulary } from './vocabulary-file';
import { SKIP_REASONS } from './vocabulary';

describe("the dashboard's vocabulary (clients/admin/src/vocabulary.ts)", () => {
  it('is the one of common/vocabulary.ts', () => {
    const current = storedDashboardVocabulary() === dashboardVocabulary();
    expect({ current, fix: 'npm run vocabulary:sync' }).toEqual({ current: true, fix: expect.any(String) });
  });

  it('carries the values themselves', () => {
    expect(dashboardVocabulary()).toContain(`export const SKIP_REASONS = [${SKIP_REASONS.map((r) => `'${r}'`).join(', ')}] as const;`);
    expect(dashboardVocabulary()).toContain(`export const PROVIDER_OF = { ios: 'apns', android: 'fcm', web: 'web_push', huawei: 'hms' } as const;`);
  });
});
