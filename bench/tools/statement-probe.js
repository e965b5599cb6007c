/**
 * Preloaded in the api (`BENCH_API_NODE_ARGS="-r ./bench/tools/statement-probe.js"`, bench/README.md "Tools"):
 * writes to /tmp/statement-probe-<pid>.log a line per event, `<ms> <event>` (milliseconds since the epoch, so that
 * the logs of several processes line up):
 * each HTTP request and its answer, each PostgreSQL statement sent (`pg>`) and answered (`pg<`),
 * each Redis command sent (`r>`) and answered (`r<`). bench/tools/statement-timeline.ts reads it. For
 * investigation only: it is never loaded otherwise.
 */
const { appendFileSync } = require('node:fs');
const http = require('node:http');

const out = `/tmp/statement-probe-${process.pid}.log`;
let lines = [];
const flush = () => {
  if (lines.length > 0) appendFileSync(out, `${lines.join('\n')}\n`);
  lines = [];
};
const log = (event) => {
  lines.push(`${(performance.timeOrigin + performance.now()).toFixed(3)} ${event}`);
  if (lines.length >= 2000) flush();
};
process.on('exit', flush);

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === 'request') {
    log(`req ${req.method} ${req.url}`);
    res.on('finish', () => log(`res ${res.statusCode}`));
  }
  return emit.apply(this, arguments);
};

// The api's own copies of pg and ioredis (the same modules its code loads).
const pg = require(require.resolve('pg', { paths: [__dirname] }));
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config) {
  const text = typeof config === 'string' ? config : (config && (config.name || config.text)) || '?';
  const label = String(text).replace(/\s+/g, ' ').trim().slice(0, 40);
  log(`pg> ${label}`);
  const args = [...arguments];
  const last = args[args.length - 1];
  if (typeof last === 'function') {
    args[args.length - 1] = function () {
      log(`pg< ${label}`);
      return last.apply(this, arguments);
    };
    return query.apply(this, args);
  }
  const result = query.apply(this, args);
  if (result && typeof result.then === 'function')
    result.then(
      () => log(`pg< ${label}`),
      () => log(`pg! ${label}`),
    );
  return result;
};

const ioredis = require(require.resolve('ioredis', { paths: [__dirname] }));
const Redis = ioredis.default || ioredis;
const sendCommand = Redis.prototype.sendCommand;
// Blocking reads wait for jobs by design: not timed.
const BLOCKING = new Set(['bzpopmin', 'brpoplpush', 'blmove']);
Redis.prototype.sendCommand = function (command) {
  const name = command && command.name;
  if (!BLOCKING.has(name)) {
    log(`r> ${name}`);
    if (command.promise)
      command.promise.then(
        () => log(`r< ${name}`),
        () => undefined,
      );
  }
  return sendCommand.apply(this, arguments);
};
