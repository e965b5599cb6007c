import fc from 'fast-check';
import type { Response } from 'supertest';
import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, newApp, newInstallation, TestTenant } from '../support/factories';
import { OpenApiDocument, responseChecker } from '../support/openapi-schemas';

/**
 * Random and hostile input against the two specified operations (interface.md 4.1 and 4.2):
 * whatever arrives, the answer is never a 5xx, and every 4xx has the API's body (docs/api.md#errors):
 * a string `message`, plus for 422 an `errors` object of string arrays.
 */
jest.setTimeout(60_000);

const RUNS = 200;

/** fast-check's report, shortened: the failing input is described in the error message already. */
const settings = {
  numRuns: RUNS,
  // `any`: one reporter serves properties of every arity, and it reads no counterexample.
  reporter(out: fc.RunDetails<any>) {
    if (!out.failed) return;
    const cause = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
    throw new Error(
      `Property failed after ${out.numRuns} runs (seed ${out.seed}, path "${out.counterexamplePath}", replay with fc.assert(..., { seed, path })):\n${cause}`,
    );
  },
};

/** JSON text spliced in verbatim, for what JSON.stringify cannot produce (1e400, 10^30, deep nesting). */
class RawJson {
  constructor(readonly text: string) {}
}

function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// Characters that have broken services before: NUL, lone surrogates, line separators, BOM, quotes.
const SPECIAL_CHARS = ['\u0000', '\ud800', '\udfff', '\u2028', '\ufeff', '\u202e', '😀', 'é', '"', '\\', '%', '/', '.', ' '];
const unit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_CHARS) },
);
const text = fc.string({ unit, maxLength: 30 });
const longText = fc
  .tuple(fc.constantFrom(255, 256, 257, 2049, 4001, 5000, 70_000), fc.constantFrom('x', 'é', '😀', '\u0000', '\ud800'))
  .map(([length, char]) => char.repeat(length));
const hugeNumber = fc
  .constantFrom('1e400', '-1e400', '1E308', '123456789012345678901234567890', '-0', '0.1e-400', '9007199254740993', '2419200.0000000001')
  .map((raw) => new RawJson(raw));
const deep = fc
  .tuple(fc.constantFrom(64, 1_000, 20_000, 100_000), fc.boolean())
  .map(([depth, arrays]) => new RawJson(arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));
const json = fc.jsonValue({ maxDepth: 4, stringUnit: unit });

/** Anything a field could be replaced with. */
const wild: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: json },
  { weight: 2, arbitrary: text },
  { weight: 1, arbitrary: longText },
  { weight: 1, arbitrary: hugeNumber },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, '', [], {}) },
);

type Mutation = { op: 'drop' } | { op: 'set'; value: unknown } | { op: 'add'; key: string; value: unknown };

/** Every path of a JSON value, as key lists ([] is the whole value). */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (Array.isArray(value)) value.forEach((item, i) => out.push(...pathsOf(item, [...prefix, i])));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) out.push(...pathsOf(item, [...prefix, key]));
  }
  return out;
}

/**
 * A copy of a generated value. Later edits add keys to what they find (`constructor` even to an
 * array), and fast-check re-reads its generated values when shrinking: an edited original made the
 * shrink itself throw ("object.constructor[Symbol.species] is not a constructor"), hiding the failure.
 */
function copy(value: unknown): unknown {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copy);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copy(item)]));
}

function mutate(base: unknown, edits: { path: (string | number)[]; mutation: Mutation }[]): unknown {
  let body: any = structuredClone(base);
  for (const { path, mutation } of edits) {
    if (path.length === 0) {
      if (mutation.op === 'set') body = copy(mutation.value);
      else if (mutation.op === 'add' && body !== null && typeof body === 'object' && !(body instanceof RawJson)) body[mutation.key] = copy(mutation.value);
      continue;
    }
    let parent: any = body;
    for (const key of path.slice(0, -1)) {
      parent = parent?.[key];
      if (parent === null || typeof parent !== 'object' || parent instanceof RawJson) break;
    }
    if (parent === null || typeof parent !== 'object' || parent instanceof RawJson) continue;
    const last = path[path.length - 1];
    if (mutation.op === 'drop') {
      if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
      else delete parent[last];
    } else if (mutation.op === 'set') {
      parent[last] = copy(mutation.value);
    } else {
      const target = parent[last];
      if (target !== null && typeof target === 'object' && !Array.isArray(target) && !(target instanceof RawJson)) target[mutation.key] = copy(mutation.value);
    }
  }
  return body;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant<Mutation>({ op: 'drop' }),
  wild.map((value): Mutation => ({ op: 'set', value })),
  fc
    .tuple(fc.oneof(text, fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString')), wild)
    .map(([key, value]): Mutation => ({ op: 'add', key, value })),
);

/** The valid body with 1 to 4 random edits. */
function mutationsOf(valid: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(valid);
  return fc.array(fc.record({ path: fc.constantFrom(...paths), mutation: mutationArb }), { minLength: 1, maxLength: 4 }).map((edits) => mutate(valid, edits));
}

function bodies(valid: unknown): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 5, arbitrary: mutationsOf(valid) },
    { weight: 2, arbitrary: wild },
    { weight: 2, arbitrary: fc.object({ maxDepth: 3, values: [json, text, hugeNumber] }) },
    { weight: 1, arbitrary: fc.constant(valid) },
  );
}

/** A path segment: percent-encoded where that is possible, else raw bytes percent-encoded one by one. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
  }
}

const statuses = new Map<number, number>();
/** Whether a response is one the OpenAPI document gives for the operation, with its body schema. */
let documented: ReturnType<typeof responseChecker>;

function checkResponse(res: Response, what: string, operation: [path: string, method: string]): void {
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const context = `${what} -> ${res.status} ${res.text?.slice(0, 300)}`;
  if (res.status >= 500) throw new Error(`server error: ${context}`);
  const problem = documented(operation[0], operation[1], res.status, res.body, res.text ?? '');
  if (problem) throw new Error(`not as documented (${problem}): ${context}`);
  if (res.status >= 400) {
    if (typeof res.body?.message !== 'string' || res.body.message === '') throw new Error(`4xx without a message: ${context}`);
    if (res.status === 422) {
      const errors = res.body.errors;
      const ok =
        errors !== null &&
        typeof errors === 'object' &&
        !Array.isArray(errors) &&
        Object.keys(errors).length > 0 &&
        Object.values(errors).every((list) => Array.isArray(list) && list.length > 0 && list.every((m) => typeof m === 'string' && m !== ''));
      if (!ok) throw new Error(`422 without an errors object of string arrays: ${context}`);
    }
  }
}

const PATCH_OP: [string, string] = ['/api/v1/installations/{installationId}', 'patch'];
const SEND_OP: [string, string] = ['/api/v1/notifications', 'post'];

const describeBody = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}... (${text.length} chars)` : text);

describe('fuzzing PATCH /installations/{id} and POST /notifications (no 5xx, documented error bodies)', () => {
  const ctx = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  let tenant: TestTenant;
  let existing: string;

  const VALID_PATCH = {
    user_id: 'user-1',
    permission: 'granted',
    device: { app_version: '1.2.3', os_version: '18.1', model: 'iPhone16,1', locale: 'en_GB', timezone: 'Europe/London' },
    push_token: 'a'.repeat(64),
  };
  const VALID_SEND = {
    recipients: { user_ids: ['user-1', 'user-2'] },
    notification: { title: 'Hello', body: 'World', image_url: 'https://cdn.example.com/a.png', action_url: 'myapp://inbox/1' },
    data: { order: 'A-1', count: 2, nested: { ok: true } },
    options: { ttl: 3600, priority: 'high', collapse_id: 'order-A-1', badge: 1, sound: 'default', platforms: ['ios', 'android', 'web'] },
  };

  beforeAll(async () => {
    documented = responseChecker((await ctx.http().get('/docs-json').expect(200)).body as OpenApiDocument);
    tenant = await newApp(ctx);
    existing = (await newInstallation(ctx, tenant.token, { user_id: 'user-1', push_token: apnsToken() })).installation_id;
  });
  afterAll(() => {
    if (process.env.FUZZ_STATS) process.stderr.write(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}\n`);
  });

  const patch = (id: string, raw: string) =>
    ctx.http().patch(`/api/v1/installations/${id}`).set(bearer(tenant.token)).set('Content-Type', 'application/json').send(raw);
  const send = (raw: string, key?: string) => {
    const req = ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).set('Content-Type', 'application/json');
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(raw);
  };

  it('the valid bodies are accepted (so the mutations start from something that works)', async () => {
    expect((await patch(existing, JSON.stringify(VALID_PATCH))).status).toBe(200);
    expect((await send(JSON.stringify(VALID_SEND))).status).toBe(202);
  });

  it('PATCH /installations/{id}: random bodies on the existing installation', async () => {
    await fc.assert(
      fc.asyncProperty(bodies(VALID_PATCH), async (body) => {
        const raw = toJsonText(body);
        checkResponse(await patch(existing, raw), `PATCH existing ${describeBody(raw)}`, PATCH_OP);
      }),
      settings,
    );
  });

  it('PATCH /installations/{id}: random ids (unknown, long, odd characters, broken escapes) with random bodies', async () => {
    const id = fc.oneof(
      { weight: 4, arbitrary: text.filter((s) => s.length > 0).map(encodeSegment) },
      // (Longer paths hit Node's 16 KiB header limit, answered by Node itself with a bare 431.)
      {
        weight: 1,
        arbitrary: fc.tuple(fc.constantFrom(255, 256, 1_000), fc.constantFrom('i', 'é', '😀', '\u0000')).map(([n, c]) => encodeSegment(c.repeat(n))),
      },
      { weight: 1, arbitrary: fc.uuid().map((u) => `inst-${u}`) },
      { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%ED%A0%80', '..', '.', '%2e%2e', '%2F', 'a%2Fb', '%20', '~') },
    );
    await fc.assert(
      fc.asyncProperty(id, bodies(VALID_PATCH), async (path, body) => {
        const raw = toJsonText(body);
        checkResponse(await patch(path, raw), `PATCH /installations/${describeBody(path)} ${describeBody(raw)}`, PATCH_OP);
      }),
      settings,
    );
  });

  it('POST /notifications: random bodies, with and without an Idempotency-Key', async () => {
    const key = fc.option(
      fc.oneof(
        fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
        fc.constantFrom('', ' ', 'k'.repeat(255), 'k'.repeat(256), '\tkey', 'same-key'),
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(bodies(VALID_SEND), key, async (body, idempotencyKey) => {
        const raw = toJsonText(body);
        checkResponse(await send(raw, idempotencyKey), `POST ${JSON.stringify(idempotencyKey)} ${describeBody(raw)}`, SEND_OP);
      }),
      settings,
    );
  });

  describe('hand-picked hostile values (each was a plausible 500)', () => {
    const sendCases: [string, unknown][] = [
      ['a lone surrogate in data', { ...VALID_SEND, data: { note: 'bad \ud800 half' } }],
      ['a lone surrogate in a data key', { ...VALID_SEND, data: { ['k\udc00']: 1 } }],
      ['a lone surrogate in options.collapse_id', { ...VALID_SEND, options: { collapse_id: '\ud83d' } }],
      ['a lone surrogate in options.sound', { ...VALID_SEND, options: { sound: 'ding\udfff' } }],
      ['a lone surrogate in the title', { ...VALID_SEND, notification: { title: '\ud800', body: 'b' } }],
      ['a lone surrogate in a user id', { ...VALID_SEND, recipients: { user_ids: ['\udfff'] } }],
      ['NUL in a data key', { ...VALID_SEND, data: { ['a\u0000b']: 1 } }],
      ['NUL in a nested data value', { ...VALID_SEND, data: { a: [{ b: 'x\u0000' }] } }],
      ['data nested 5,000 levels deep', { ...VALID_SEND, data: new RawJson(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`) }],
      ['data nested 100,000 levels deep', { ...VALID_SEND, data: new RawJson(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`) }],
      ['a body that is 100,000 nested arrays', new RawJson(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
      ['an unknown field nested 50,000 levels deep', { ...VALID_SEND, extra: new RawJson(`${'['.repeat(50_000)}${']'.repeat(50_000)}`) }],
      ['options.ttl = 1e400', { ...VALID_SEND, options: { ttl: new RawJson('1e400') } }],
      ['options.badge = 10^30', { ...VALID_SEND, options: { badge: new RawJson('1000000000000000000000000000000') } }],
      ['data with a 10^400 number', { ...VALID_SEND, data: { n: new RawJson('1e400') } }],
      ['data key __proto__', new RawJson(`{"recipients":{"user_ids":["u"]},"notification":{"title":"t","body":"b"},"data":{"__proto__":{"x":1}}}`)],
      ['recipients key __proto__', new RawJson(`{"recipients":{"__proto__":{"user_ids":["u"]}},"notification":{"title":"t","body":"b"}}`)],
      ['an unknown field named constructor', { ...VALID_SEND, constructor: 1 }],
      ['an unknown field named toString', { ...VALID_SEND, toString: 'x' }],
      ['an unknown field named hasOwnProperty inside notification', { ...VALID_SEND, notification: { ...VALID_SEND.notification, hasOwnProperty: 1 } }],
      ['an unknown field named __proto__', new RawJson(`{"recipients":{"user_ids":["u"]},"notification":{"title":"t","body":"b"},"__proto__":{"x":1}}`)],
      ['options.valueOf', { ...VALID_SEND, options: { valueOf: 1 } }],
      ['NUL in an unknown field named toString', { ...VALID_SEND, toString: 'a\u0000' }],
      ['NUL in an unknown field named constructor', { ...VALID_SEND, constructor: '\u0000' }],
      ['10,001 user ids', { ...VALID_SEND, recipients: { user_ids: Array.from({ length: 10_001 }, (_, i) => `u${i}`) } }],
      [
        '10,000 user ids of 255 characters (near 2.5 MB, over the body limit)',
        { ...VALID_SEND, recipients: { user_ids: Array.from({ length: 10_000 }, (_, i) => `${i}`.padEnd(255, 'u')) } },
      ],
    ];

    it.each(sendCases)('POST /notifications with %s', async (_name, body) => {
      const raw = toJsonText(body);
      checkResponse(await send(raw), `POST ${describeBody(raw)}`, SEND_OP);
    });

    it.each(sendCases.slice(0, 8))('POST /notifications with an Idempotency-Key and %s', async (_name, body) => {
      const raw = toJsonText(body);
      checkResponse(await send(raw, `hostile-${_name}`), `POST (keyed) ${describeBody(raw)}`, SEND_OP);
    });

    const patchCases: [string, unknown][] = [
      ['a lone surrogate in device.model', { device: { model: 'Pixel \ud800' } }],
      ['a lone surrogate in user_id', { user_id: '\udbff' }],
      ['a lone surrogate in push_token', { push_token: `${'a'.repeat(64)}\ud800` }],
      ['NUL in a device key', { device: { ['mo\u0000del']: 'x' } }],
      ['device nested 100,000 levels deep', { device: new RawJson(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`) }],
      ['user_id = 1e400', { user_id: new RawJson('1e400') }],
      ['an unknown field named constructor', { constructor: 'x' }],
      ['device.toString', { device: { toString: 'x' } }],
      ['NUL in an unknown field named valueOf', { valueOf: '\u0000' }],
      ['NUL in an unknown field named __proto__', new RawJson('{"__proto__":"\\u0000"}')],
      ['a 4,097-character push token', { push_token: 'a'.repeat(4097) }],
      [
        'web_push_subscription on an ios installation',
        { web_push_subscription: { endpoint: 'https://push.example.com/x', keys: { p256dh: 'AA', auth: 'BB' } } },
      ],
    ];

    it.each(patchCases)('PATCH /installations/{id} with %s', async (_name, body) => {
      const raw = toJsonText(body);
      checkResponse(await patch(existing, raw), `PATCH ${describeBody(raw)}`, PATCH_OP);
    });

    it.each([
      ['%ED%A0%80 (an encoded lone surrogate)', '%ED%A0%80'],
      ['%C0%AF (overlong UTF-8)', '%C0%AF'],
      ['%E0%A4%A (truncated escape)', '%E0%A4%A'],
      ['%00', '%00'],
      ['256 characters', 'i'.repeat(256)],
      ['255 × "😀" (255 characters, 1,020 bytes)', encodeURIComponent('😀'.repeat(255))],
    ])('PATCH /installations/%s', async (_name, path) => {
      checkResponse(await patch(path, JSON.stringify({ user_id: 'u' })), `PATCH /installations/${path}`, PATCH_OP);
    });
  });
});
