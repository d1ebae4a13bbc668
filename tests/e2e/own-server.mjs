// A `tenka serve` of a test's own, beside the shared one run.sh starts: for what needs other
// options (an operator token, a movable clock, a mail relay). The binary and the rulesets are
// the ones run.sh names in E2E_TENKA_BIN and E2E_TENKA_RULESETS.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from './lib.mjs';

/** Why a test of its own server cannot run, or false when it can. */
export const OWN_SERVER_SKIP = !process.env.E2E_TENKA_BIN || !process.env.E2E_TENKA_RULESETS ? 'needs the tenka binary (run.sh)' : false;

/** A free TCP port on localhost. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `tenka serve` on a free port with its database in `dir`, the web client, bots that
 * move at once, and `args` (the maps folder among them unless `maps` is given); resolves once it
 * serves, with the child, its address and its error output so far.
 */
export async function startOwnServer(dir, args, { maps = path.join(ROOT, 'maps') } = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.env.E2E_TENKA_BIN,
    [
      'serve', '--addr', `127.0.0.1:${port}`, '--data', path.join(dir, 'db'), '--rulesets', process.env.E2E_TENKA_RULESETS,
      '--maps', maps, '--web', path.join(ROOT, 'web-ui'), '--bot-pace-ms', '0',
      ...(typeof args === 'function' ? args(base) : args),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TENKA_OPERATOR_TOKEN: '' } },
  );
  let log = '';
  child.stderr.on('data', (chunk) => (log += chunk));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${log}`)), 60000);
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('tenka serving on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`the server exited (${code}):\n${log}`)));
  });
  return { child, base, log: () => log };
}
