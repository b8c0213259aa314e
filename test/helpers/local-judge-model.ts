import { llamaRuntimeInstalled, locateJudgeModel } from '../../router/judge/judge-files';

/** The local judge's model file, and why a test cannot use it (false when it can). */
export function localJudgeModel(): { modelPath: string | undefined; missing: string | false } {
  const modelPath = locateJudgeModel(process.env.ROUTER_JUDGE_MODEL);
  const missing = !modelPath
    ? 'judge model not in the cache (npm run models -- --judge)'
    : !llamaRuntimeInstalled()
      ? 'node-llama-cpp not installed (npm run models -- --judge)'
      : false;
  return { modelPath, missing };
}
