/** The judge as configured (ROUTER_JUDGE …), or none: off (or `auto` on a host it does not fit), or its local model or runtime not installed (said in the log). */
import type { Config } from '../../platform/config';
import { BoundedJudge } from './bounded-judge';
import { llamaRuntimeInstalled, locateJudgeModel } from './judge-files';
import { LocalJudge } from './local-judge';
import { OpenAiJudge } from './openai-judge';
import { judgeFits, type JudgeStatus } from './judge-auto';
import { availableParallelism, freemem } from 'node:os';

type JudgeConfig = Pick<Config, 'ROUTER_JUDGE' | 'ROUTER_JUDGE_MODEL' | 'ROUTER_JUDGE_TIMEOUT_MS' | 'ROUTER_PARAMS_MODEL_TIMEOUT_MS' | 'ROUTER_JUDGE_THREADS' | 'LLM_MODEL' | 'LLM_BASE_URL' | 'LLM_API_KEY'>;

/** The judge in use and why: what ROUTER_JUDGE says, `auto` decided for this host (judge-auto.ts). */
export function judgeStatusOf(config: Pick<Config, 'ROUTER_JUDGE' | 'ROUTER_JUDGE_MODEL'>, env: NodeJS.ProcessEnv = process.env, host = { cores: availableParallelism(), freeBytes: freemem() }): JudgeStatus {
  const setting = config.ROUTER_JUDGE;
  if (setting !== 'auto') return { setting, active: setting, why: `ROUTER_JUDGE=${setting}` };
  const installed = Boolean(locateJudgeModel(config.ROUTER_JUDGE_MODEL, env)) && llamaRuntimeInstalled(env);
  const { fits, why } = judgeFits({ installed, ...host });
  return { setting, active: fits ? 'local' : 'off', why };
}

export function createJudge(config: JudgeConfig, logger: { info(msg: string): void; warn(msg: string): void }, env: NodeJS.ProcessEnv = process.env, status: JudgeStatus = judgeStatusOf(config, env)): BoundedJudge | undefined {
  const bounds = { timeoutMs: config.ROUTER_JUDGE_TIMEOUT_MS };
  if (status.setting === 'auto') logger.info(`router: ROUTER_JUDGE=auto: the local judge is ${status.active === 'local' ? 'on' : 'off'} (${status.why})`);
  if (status.active === 'llm') {
    const model = config.ROUTER_JUDGE_MODEL ?? config.LLM_MODEL!;
    logger.info(`router: the judge is ${model} at ${config.LLM_BASE_URL ?? 'the OpenAI API'}`);
    return new BoundedJudge(new OpenAiJudge({ model, ...(config.LLM_BASE_URL ? { baseURL: config.LLM_BASE_URL } : {}), ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}) }), bounds);
  }
  if (status.active === 'local') {
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
    return new BoundedJudge(local, { ...bounds, fillTimeoutMs: config.ROUTER_PARAMS_MODEL_TIMEOUT_MS });
  }
  return undefined;
}
