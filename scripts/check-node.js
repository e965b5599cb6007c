// `npm run setup`, `npm start` and `npm test` run this first: on a Node older than the major of
// .node-version it stops at once with one line saying which Node is needed and how to get it
// (README.md "Node 24"), instead of failing later in a dependency with no word about Node.
// Plain CommonJS with nothing newer than Node 14 can parse, so any Node can tell.
/* global require, process, __dirname */
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const pinned = readFileSync(join(__dirname, '..', '.node-version'), 'utf8').trim();
const needed = Number(pinned.split('.')[0]);
const running = Number(process.versions.node.split('.')[0]);
if (running < needed) {
  process.stderr.write(
    `Node ${needed} is needed, this is Node ${process.versions.node}: run \`source .ci/node.sh\` (it puts Node ${pinned} first on PATH), then this command again.\n`,
  );
  process.exit(1);
}
