import { bestLocalization, contentFor, localizedVariants, PushContent } from './payloads';

describe('bestLocalization (docs/api.md#localization)', () => {
  const keys = ['fr', 'pt-BR', 'pt-AO', 'zh-Hant-TW', 'en-GB'];

  it('prefers the key equal to the whole tag, case-insensitively, with _ or -', () => {
    expect(bestLocalization(keys, 'pt-BR')).toBe('pt-BR');
    expect(bestLocalization(keys, 'pt_br')).toBe('pt-BR');
    expect(bestLocalization(keys, 'ZH_hant_tw')).toBe('zh-Hant-TW');
  });

  it('then the key equal to its language subtag', () => {
    expect(bestLocalization(keys, 'fr_CA')).toBe('fr');
    expect(bestLocalization(['pt-BR', 'pt'], 'pt-PT')).toBe('pt');
  });

  it('then the first key in request order with the same language subtag', () => {
    expect(bestLocalization(keys, 'pt-PT')).toBe('pt-BR');
    expect(bestLocalization(['pt-AO', 'pt-BR'], 'pt-PT')).toBe('pt-AO');
    expect(bestLocalization(keys, 'en')).toBe('en-GB');
  });

  it('else none: the default fields', () => {
    expect(bestLocalization(keys, 'de-DE')).toBeNull();
    expect(bestLocalization(keys, null)).toBeNull();
    expect(bestLocalization(keys, '')).toBeNull();
    expect(bestLocalization([], 'fr')).toBeNull();
  });
});

describe('contentFor', () => {
  const content: PushContent = {
    id: 'n1',
    title: 'Shipped',
    body: 'On its way',
    image_url: 'https://cdn.example.com/box.png',
    action_url: null,
    data: null,
    options: null,
    localizations: { fr: { title: 'Expédiée' }, es: { title: 'Enviado', body: 'En camino', action_url: 'myapp://es' } },
  };

  it('takes the fields the variant has and the default for the rest', () => {
    expect(contentFor(content, 'fr-FR')).toMatchObject({
      title: 'Expédiée',
      body: 'On its way',
      image_url: 'https://cdn.example.com/box.png',
      action_url: null,
    });
    expect(contentFor(content, 'es')).toMatchObject({ title: 'Enviado', body: 'En camino', action_url: 'myapp://es' });
    expect(contentFor(content, 'it')).toBe(content);
  });

  it('lists every variant as a device would get it, for the size check', () => {
    expect(localizedVariants(content).map(([tag, c]) => [tag, c.title, c.body])).toEqual([
      ['fr', 'Expédiée', 'On its way'],
      ['es', 'Enviado', 'En camino'],
    ]);
  });
});
