import type { IncomingMessage, ServerResponse } from 'node:http';
import { redactRequest, redactResponse, requestId } from './log-options';

describe('requestId', () => {
  const call = (header?: string) => {
    const headers: Record<string, string> = {};
    const res = { setHeader: (name: string, value: string) => (headers[name] = value) } as unknown as ServerResponse;
    const id = requestId({ headers: header === undefined ? {} : { 'x-request-id': header } } as IncomingMessage, res);
    return { id, header: headers['X-Request-Id'] };
  };

  it('keeps a sane caller id and echoes it', () => {
    expect(call('trace-42.abc')).toEqual({ id: 'trace-42.abc', header: 'trace-42.abc' });
  });

  it.each([undefined, '', 'with space', 'x'.repeat(129), 'line\nbreak'])('replaces %p with a UUID', (header) => {
    const { id, header: echoed } = call(header);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(echoed).toBe(id);
  });
});

describe('redactRequest and redactResponse', () => {
  it('censor secret-named headers, secret query parameters and nothing else', () => {
    expect(
      redactRequest({
        method: 'GET',
        url: '/x?access_token=abc&page=2',
        query: { access_token: 'abc', page: '2' },
        headers: { authorization: 'Bearer pns_x', cookie: 'a=b', 'user-agent': 'curl' },
      }),
    ).toEqual({
      method: 'GET',
      url: '/x?access_token=[Redacted]&page=2',
      query: { access_token: '[Redacted]', page: '2' },
      headers: { authorization: '[Redacted]', cookie: '[Redacted]', 'user-agent': 'curl' },
    });
    expect(redactResponse({ statusCode: 200, headers: { 'set-cookie': ['pns_admin=s'], 'content-type': 'application/json' } })).toEqual({
      statusCode: 200,
      headers: { 'set-cookie': '[Redacted]', 'content-type': 'application/json' },
    });
  });
});
