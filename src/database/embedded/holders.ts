import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A process, named by its pid and its start time (so a reused pid is not taken for the one that died). */
export interface Holder {
  pid: number;
  start: string;
}

/** The kernel's start time of `pid` (field 22 of /proc/<pid>/stat), undefined once it has exited; '' without /proc. */
export function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return existsSync('/proc/self/stat') ? undefined : '';
  }
}

export const self = (): Holder => ({ pid: process.pid, start: startOf(process.pid) ?? '' });

export function isAlive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = startOf(holder.pid);
  return holder.start === '' || start === '' || start === holder.start;
}

const format = (holder: Holder) => `${holder.pid} ${holder.start}\n`;

function parse(text: string): Holder | undefined {
  const [pid, start = ''] = text.trim().split(' ');
  return /^\d+$/.test(pid) ? { pid: Number(pid), start } : undefined;
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** Blocks the thread: the release runs in process.on('exit'), where nothing asynchronous runs. */
export const sleepSync = (ms: number) => Atomics.wait(pause, 0, 0, ms);

/** The processes sharing one directory's server (holders/<pid>; the dead are not counted), and the lock that serializes start and stop. */
export class HolderRegistry {
  private readonly holders: string;
  private readonly lockFile: string;

  constructor(
    dir: string,
    private readonly alive: (holder: Holder) => boolean = isAlive,
  ) {
    this.holders = join(dir, 'holders');
    this.lockFile = join(dir, 'lock');
    mkdirSync(this.holders, { recursive: true, mode: 0o700 });
  }

  add(holder: Holder): void {
    writeFileSync(join(this.holders, String(holder.pid)), format(holder));
  }

  remove(holder: Holder): void {
    unlinkQuietly(join(this.holders, String(holder.pid)));
  }

  /** The registered holders still running; the files of the others are deleted. */
  living(): Holder[] {
    const living: Holder[] = [];
    for (const name of readdirSync(this.holders)) {
      const file = join(this.holders, name);
      const holder = parse(readFileOrEmpty(file));
      if (holder && this.alive(holder)) living.push(holder);
      else unlinkQuietly(file);
    }
    return living;
  }

  /** Takes the directory's lock, waiting up to `timeoutMs`; a lock whose holder died is taken over. */
  lock(owner: Holder, timeoutMs: number): () => void {
    const deadline = Date.now() + timeoutMs;
    const mine = `${this.lockFile}.${owner.pid}`;
    writeFileSync(mine, format(owner));
    try {
      for (;;) {
        try {
          linkSync(mine, this.lockFile);
          return () => unlinkQuietly(this.lockFile);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const current = parse(readFileOrEmpty(this.lockFile));
        if (current && !this.alive(current)) {
          this.takeOver(current, owner);
          continue;
        }
        if (Date.now() > deadline) throw new Error(`${this.lockFile} is held by process ${current?.pid ?? '?'} for more than ${timeoutMs} ms`);
        sleepSync(25);
      }
    } finally {
      unlinkQuietly(mine);
    }
  }

  /** Moves the dead holder's lock aside; if another process took the lock meanwhile, puts that one back. */
  private takeOver(dead: Holder, owner: Holder): void {
    const aside = `${this.lockFile}.stale.${owner.pid}`;
    try {
      renameSync(this.lockFile, aside);
    } catch {
      return;
    }
    const moved = parse(readFileOrEmpty(aside));
    if (moved && (moved.pid !== dead.pid || moved.start !== dead.start)) {
      try {
        linkSync(aside, this.lockFile);
      } catch {
        // Someone else holds it now; theirs stands.
      }
    }
    unlinkQuietly(aside);
  }
}

function readFileOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}
