import { QueryFailedError } from 'typeorm';
import { isStoreUnavailable } from './unavailable';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isStoreUnavailable', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a reset connection', withCode('ECONNRESET')],
    ['a timed-out connection', withCode('ETIMEDOUT')],
    ['pg: server closed the connection', new Error('Connection terminated unexpectedly')],
    ['pg pool: no connection in time', new Error('timeout exceeded when trying to connect')],
    ['pg: admin shutdown (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['pg: the database system is starting up (57P03)', withCode('57P03')],
    ['pg: connection exception class 08', withCode('08006')],
    ['pg: too many connections', withCode('53300')],
    ['ioredis: closed connection', new Error('Connection is closed.')],
    ['ioredis: retries exhausted', new Error('Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.')],
    ['ioredis: offline queue off', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ['ioredis Cluster: not ready', new Error("Cluster isn't ready and enableOfflineQueue options is false")],
    ['ioredis Cluster: no node answers', new Error('Failed to refresh slots cache.')],
    ['ioredis Cluster: no seed node', new Error('None of startup nodes is available')],
    ['Redis Cluster: slots not served', new Error('CLUSTERDOWN The cluster is down')],
    ['a TypeORM error wrapping one', new QueryFailedError('SELECT 1', [], withCode('57P01'))],
    ['a cause chain', new Error('enqueue failed', { cause: withCode('ECONNREFUSED') })],
    ['an AggregateError (happy eyeballs)', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')])],
  ])('%s: yes', (_what, error) => expect(isStoreUnavailable(error)).toBe(true));

  it.each([
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a constraint violation', new QueryFailedError('INSERT', [], withCode('23505', 'duplicate key value'))],
    ['a missing table (schema, not availability)', withCode('42P01', 'relation "api_tokens" does not exist')],
    ['not an error', 'ECONNREFUSED'],
    ['null', null],
  ])('%s: no', (_what, error) => expect(isStoreUnavailable(error)).toBe(false));
});
