/** The judge as configured (ROUTER_JUDGE …), or none: off, or its local model or runtime not installed (said in the log). */
import type { Config } from '../../platform/config';
import { BoundedJudge } from './bounded-judge';
import { llamaRuntimeInstalled, locateJudgeModel } from './judge-files';
import { LocalJudge } from './local-judge';
import { OpenAiJudge } from './openai-judge';

type JudgeConfig = Pick<Config, 'ROUTER_JUDGE' | 'ROUTER_JUDGE_MODEL' | 'ROUTER_JUDGE_SHARE' | 'ROUTER_JUDGE_TIMEOUT_MS' | 'ROUTER_JUDGE_THREADS' | 'LLM_MODEL' | 'LLM_BASE_URL' | 'LLM_API_KEY'>;

export function createJudge(config: JudgeConfig, logger: { info(msg: string): void; warn(msg: string): void }, env: NodeJS.ProcessEnv = process.env): BoundedJudge | undefined {
  const bounds = { share: config.ROUTER_JUDGE_SHARE, timeoutMs: config.ROUTER_JUDGE_TIMEOUT_MS };
  if (config.ROUTER_JUDGE === 'llm') {
    const model = config.ROUTER_JUDGE_MODEL ?? config.LLM_MODEL!;
    logger.info(`router: the judge is ${model} at ${config.LLM_BASE_URL ?? 'the OpenAI API'}`);
    return new BoundedJudge(new OpenAiJudge({ model, ...(config.LLM_BASE_URL ? { baseURL: config.LLM_BASE_URL } : {}), ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}) }), bounds);
  }
  if (config.ROUTER_JUDGE === 'local') {
    const modelPath = locateJudgeModel(config.ROUTER_JUDGE_MODEL, env);
    if (!modelPath) {
      logger.warn(`router: no judge: ${config.ROUTER_JUDGE_MODEL ?? 'the default judge model'} is not there (\`npm run models -- --judge\`)`);
      return undefined;
    }
    if (!llamaRuntimeInstalled(env)) {
      logger.warn('router: no judge: node-llama-cpp is not installed (`npm run models -- --judge`)');
      return undefined;
    }
    logger.info(`router: the judge is ${modelPath} on ${config.ROUTER_JUDGE_THREADS} CPU threads`);
    const local = new LocalJudge({ modelPath, threads: config.ROUTER_JUDGE_THREADS });
    local.warm().catch((error: unknown) => logger.warn(`router: the judge's model could not be loaded: ${(error as Error).message ?? String(error)}`));
    return new BoundedJudge(local, bounds);
  }
  return undefined;
}
