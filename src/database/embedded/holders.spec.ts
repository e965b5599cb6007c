import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Holder, HolderRegistry, isAlive, self, startOf } from './holders';

/** A pid that has exited: a child run to completion. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid;

describe('HolderRegistry (DATABASE_URL=embedded: who shares the server)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pns-holders-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts the living holders and forgets the ones that died without leaving', () => {
    const registry = new HolderRegistry(dir);
    const dead: Holder = { pid: deadPid(), start: '1' };
    registry.add(self());
    registry.add(dead);
    expect(registry.living()).toEqual([self()]);
    expect(readdirSync(join(dir, 'holders'))).toEqual([String(process.pid)]);
    registry.remove(self());
    expect(registry.living()).toEqual([]);
  });

  it('does not count a holder whose pid now names another process (a different start time)', () => {
    expect(isAlive(self())).toBe(true);
    expect(isAlive({ pid: process.pid, start: `${startOf(process.pid)}0` })).toBe(false);
    expect(isAlive({ pid: deadPid(), start: '' })).toBe(false);
  });

  it('takes the lock, refuses it to another living process until released', () => {
    const registry = new HolderRegistry(dir);
    const unlock = registry.lock(self(), 1_000);
    const other = new HolderRegistry(dir, () => true);
    expect(() => other.lock({ pid: process.ppid, start: '' }, 100)).toThrow(/held by process/);
    unlock();
    other.lock({ pid: process.ppid, start: '' }, 100)();
    expect(existsSync(join(dir, 'lock'))).toBe(false);
  });

  it('takes over a lock whose holder died (a crashed start does not block the next)', () => {
    writeFileSync(join(dir, 'lock'), `${deadPid()} 1\n`);
    const registry = new HolderRegistry(dir);
    const unlock = registry.lock(self(), 1_000);
    expect(readdirSync(dir).sort()).toEqual(['holders', 'lock']);
    unlock();
  });

  it('the last to leave is the one that finds no other living holder', () => {
    const alive = new Set([1001, 1002]);
    const registry = new HolderRegistry(dir, (holder) => alive.has(holder.pid));
    const first = { pid: 1001, start: 'a' };
    const second = { pid: 1002, start: 'b' };
    registry.add(first);
    registry.add(second);
    registry.remove(first);
    expect(registry.living()).toEqual([second]);
    // The second crashes: the next process to leave finds nobody and stops the server.
    alive.delete(1002);
    expect(registry.living()).toEqual([]);
  });
});
