/** `npm run python-tools`: makes the venv of the Python test tools (test/runner/python-tools.ts); `.ci/run` runs it. */
import { ensurePythonTools } from '../test/runner/python-tools';

ensurePythonTools((line) => console.log(`[python-tools] ${line}`)).then(
  (python) => console.log(`[python-tools] ready: ${python}`),
  (error: unknown) => {
    console.error(`[python-tools] ${(error as Error).message}`);
    process.exit(1);
  },
);
