import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestId } from './log-options';

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

