/**
 * System packages some tests need beyond the README's prerequisites (HAProxy and PostgreSQL for the cluster test,
 * Chromium for the dashboard test). Without one the test skips, its reason saying what to install; `.ci/run`
 * installs them all and REQUIRE_ALL_SUITES=1 turns such a skip into a failure.
 */
import { existsSync } from 'node:fs';
import { findOnPath } from '../../supervisor/binaries';
import { haproxyBinary } from '../../supervisor/cluster/balancer';
import { postgresBinDir } from '../../supervisor/cluster/postgres';

/** A test's `skip` option: false when every finder finds its package, else their messages (what to install). */
export function skipUnlessInstalled(finders: (() => unknown)[]): string | false {
  const missing = finders.flatMap((find) => {
    try {
      find();
      return [];
    } catch (error) {
      return [(error as Error).message];
    }
  });
  return missing.length === 0 ? false : missing.join('; ');
}

/** Chromium for playwright-core: CHROMIUM_PATH, else `chromium` or `chromium-browser` on PATH. */
export function chromiumBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CHROMIUM_PATH) {
    if (!existsSync(env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH=${env.CHROMIUM_PATH}, but no file exists there`);
    return env.CHROMIUM_PATH;
  }
  const found = findOnPath('chromium', env) ?? findOnPath('chromium-browser', env);
  if (!found) throw new Error('Chromium not found: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH');
  return found;
}

/** The cluster test's `skip`: it needs HAProxy and PostgreSQL (`npm test` builds its Temporal server only if not). */
export function clusterSkip(): string | false {
  return skipUnlessInstalled([() => haproxyBinary(), () => postgresBinDir()]);
}
