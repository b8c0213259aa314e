/**
 * The Python test tools: independent clients from PyPI (MCP, A2A SDK, Schemathesis) in one venv under the cache
 * folder, `<cache>/venv`. `npm test` and `.ci/run` make it the same way (`npm run python-tools`): the venv once, then
 * the pinned packages whenever the pins change (a stamp file in the venv records the pins installed).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../platform/cache-dir';
import { runWithProgress } from '../../supervisor/binaries';

/** What the tests use: mcp (test/integration/mcp-python), a2a-sdk + uvicorn (a2a-face, a2a-delivery), Schemathesis. */
export const PYTHON_TOOL_PINS = [
  'mcp==2.3.0',
  'a2a-sdk[http-server]==1.3.0',
  'uvicorn==0.54.0',
  'schemathesis==4.32.5',
];

type Log = (line: string) => void;

export function venvDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'venv');
}

const stampFile = () => join(venvDir(), 'agent-reach-pins.txt');
const pinsText = () => `${PYTHON_TOOL_PINS.join('\n')}\n`;

/** Whether the venv holds exactly the pinned packages (as far as the stamp of the last install tells). */
export function pythonToolsReady(): boolean {
  return existsSync(stampFile()) && readFileSync(stampFile(), 'utf8') === pinsText();
}

/** Makes the venv and installs the pins into it, unless done already. Throws with the step that failed and why. */
export async function ensurePythonTools(log: Log): Promise<string> {
  const python = join(venvDir(), 'bin', 'python');
  if (pythonToolsReady()) return python;
  mkdirSync(cacheDir(), { recursive: true });
  // Several test runs may share the cache: one installs, the others wait for it (two pips in one venv clash).
  await underLock(`${venvDir()}.lock`, log, async () => {
    if (pythonToolsReady()) return;
    if (!existsSync(python)) {
      const made = spawnSync('python3', ['-m', 'venv', venvDir()], { encoding: 'utf8' });
      if (made.error) throw new Error('python3 not found: install Python 3 (Debian: apt-get install python3-venv)');
      if (made.status !== 0)
        throw new Error(`python3 -m venv failed (Debian: apt-get install python3-venv): ${made.stderr.trim()}`);
    }
    await runWithProgress(
      `Installing the Python test tools from PyPI (${PYTHON_TOOL_PINS.join(', ')}; one to two minutes)`,
      python,
      ['-m', 'pip', 'install', '--disable-pip-version-check', ...PYTHON_TOOL_PINS],
      { logFile: join(cacheDir(), 'pip-install.log') },
      log,
    );
    writeFileSync(stampFile(), pinsText());
  });
  return python;
}

/** A lock older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 20 * 60_000;

/** Runs `work` holding `lock` (a folder: made atomically), waiting while another process holds it. */
async function underLock(lock: string, log: Log, work: () => Promise<void>): Promise<void> {
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = statSync(lock, { throwIfNoEntry: false });
    if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    if (!told) log(`another process is installing the Python test tools (${lock}); waiting for it`);
    told = true;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  try {
    await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
