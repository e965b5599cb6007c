import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, newApp, type TestTenant } from '../support/factories';

/**
 * Issue 57 item 5 (docs/api.md#conventions, "Numbers"): JSON.parse turns 9007199254740993 into
 * ...992 without a word, so an integer outside ±(2^53 - 1) is refused with a 422 at its path,
 * wherever the body holds it. The bodies are sent as text: the digits are what a client sends.
 */
describe('integers outside the safe range (issue 57 item 5)', () => {
  const ctx = useTestApp();
  let tenant: TestTenant;
  const UNSAFE = 'The :attribute field must be an integer from -9007199254740991 to 9007199254740991 (a larger one would lose digits).';
  const unsafe = (path: string) => ({ [path]: [UNSAFE.replace(':attribute', path)] });

  beforeAll(async () => {
    tenant = await newApp(ctx);
  });

  const raw = (method: 'put' | 'patch' | 'post', path: string, text: string) =>
    ctx.http()[method](`/api/v1${path}`).set(bearer(tenant.token)).set('Content-Type', 'application/json').send(text);

  it('refuses such a property at its path and stores nothing', async () => {
    const put = await raw(
      'put',
      '/installations/big-props',
      `{"platform":"ios","push_token":"${apnsToken()}","properties":{"plan":"pro","big":9007199254740993}}`,
    );
    expect(put.status).toBe(422);
    expect(put.body.errors).toEqual(unsafe('properties.big'));
    await ctx.http().get('/api/v1/installations/big-props').set(bearer(tenant.token)).expect(404);

    await raw('put', '/installations/big-props', `{"platform":"ios","push_token":"${apnsToken()}","properties":{"top":9007199254740991}}`).expect(201);
    for (const value of ['-9007199254740992', '1e300', '9007199254740992']) {
      const patch = await raw('patch', '/installations/big-props', `{"properties":{"low":${value}}}`);
      expect({ value, status: patch.status, errors: patch.body.errors }).toEqual({ value, status: 422, errors: unsafe('properties.low') });
    }
    // The largest safe integer and fractions are kept exactly as sent.
    await raw('patch', '/installations/big-props', '{"properties":{"low":-9007199254740991,"ratio":0.1}}').expect(200);
    const stored = await ctx.http().get('/api/v1/installations/big-props').set(bearer(tenant.token)).expect(200);
    expect(stored.body.data.properties).toEqual({ top: 9007199254740991, low: -9007199254740991, ratio: 0.1 });
  });

  it('refuses it in a send: in data and in a filter value, each at its path', async () => {
    const send = await raw(
      'post',
      '/notifications',
      '{"recipients":{"filter":{"field":"properties.points","op":"gte","value":12345678901234567890}},' +
        '"notification":{"title":"Hi","body":"There"},"data":{"order":{"ids":[1,18014398509481985]}}}',
    );
    expect(send.status).toBe(422);
    expect(send.body.errors).toMatchObject({ ...unsafe('recipients.filter.value'), ...unsafe('data.order.ids.1') });
    const count = await raw('post', '/audiences/count', '{"filter":{"field":"properties.points","op":"in","value":[1,-1e20]}}');
    expect(count.status).toBe(422);
    expect(count.body.errors).toMatchObject(unsafe('filter.value.1'));
  });
});
