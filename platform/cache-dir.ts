import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where built servers and model files are kept, outside any work tree: `AGENT_REACH_CACHE_DIR`, else XDG, else ~/.cache. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENT_REACH_CACHE_DIR) return env.AGENT_REACH_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agent-reach');
}
