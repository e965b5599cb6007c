/** How often a process run by npm looks whether its parent is still there. */
const PARENT_CHECK_MS = 250;

/**
 * Under `npx` or `npm exec`, npm runs the command in a shell and forwards SIGTERM and SIGINT to
 * that shell, which dies without passing them on: the process is left to init. So a process npm
 * started calls `stop` once its parent is gone (docs/testing.md#start-the-sandbox). Started any
 * other way it does nothing, so `nohup ... &` keeps working.
 */
export function stopWhenNpmLeaves(stop: () => void, env: NodeJS.ProcessEnv = process.env): void {
  if (env.npm_command === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, PARENT_CHECK_MS);
  timer.unref();
}
