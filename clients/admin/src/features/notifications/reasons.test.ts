import { describe, expect, it } from 'vitest';
import { REASON_EXPLANATIONS } from '../../vocabulary';
import { reasonMeaning } from './reasons';

describe('reasonMeaning (issue 54 item 7)', () => {
  it('tells a Live Activity start’s and a widget push’s other platforms apart from options.platforms', () => {
    expect(reasonMeaning('PlatformExcluded', { options: { live_activity: { attributes_type: 'Delivery' } } })).toBe(
      'A Live Activity start reaches iOS only, so the other platforms are left out.',
    );
    expect(reasonMeaning('PlatformExcluded', { options: { widgets: true } })).toBe('A widget push reaches iOS only, so the other platforms are left out.');
    expect(reasonMeaning('PlatformExcluded', { options: { platforms: ['ios'] } as never })).toBe(REASON_EXPLANATIONS.PlatformExcluded);
    expect(reasonMeaning('PlatformExcluded')).toBe(REASON_EXPLANATIONS.PlatformExcluded);
    expect(REASON_EXPLANATIONS.PlatformExcluded).not.toBe('The send’s options.platforms left this platform out.');
  });

  it('looks other reasons up whole, then by their first word; a provider’s rarer words have none', () => {
    expect(reasonMeaning('NoToken', { options: { live_activity: {} } })).toBe(REASON_EXPLANATIONS.NoToken);
    expect(reasonMeaning('HTTP 502')).toBe(REASON_EXPLANATIONS.HTTP);
    expect(reasonMeaning('SomethingNew')).toBeUndefined();
  });
});
