/** The judge as configured (ROUTER_JUDGE …), or none: off (or `auto` on a host it does not fit), or its local model or runtime not installed (said in the log). */
import type { Config } from '../../platform/config';
import { BoundedJudge } from './bounded-judge';
import { llamaRuntimeInstalled, locateJudgeModel } from './judge-files';
import { LocalJudge } from './local-judge';
import { OpenAiJudge } from './openai-judge';
import { judgeFits, type JudgeStatus } from './judge-auto';
import { probeJudge } from './judge-probe';
import { availableParallelism, freemem } from 'node:os';

type JudgeConfig = Pick<
  Config,
  | 'ROUTER_JUDGE'
  | 'ROUTER_JUDGE_MODEL'
  | 'ROUTER_JUDGE_TIMEOUT_MS'
  | 'ROUTER_PARAMS_MODEL_TIMEOUT_MS'
  | 'ROUTER_JUDGE_THREADS'
  | 'LLM_MODEL'
  | 'LLM_BASE_URL'
  | 'LLM_API_KEY'
>;

/** The judge in use and why: what ROUTER_JUDGE says, `auto` decided for this host (judge-auto.ts). */
export function judgeStatusOf(
  config: Pick<Config, 'ROUTER_JUDGE' | 'ROUTER_JUDGE_MODEL'>,
  env: NodeJS.ProcessEnv = process.env,
  host = { cores: availableParallelism(), freeBytes: freemem() },
): JudgeStatus {
  const setting = config.ROUTER_JUDGE;
  if (setting !== 'auto') return { setting, active: setting, why: `ROUTER_JUDGE=${setting}` };
  const installed = Boolean(locateJudgeModel(config.ROUTER_JUDGE_MODEL, env)) && llamaRuntimeInstalled(env);
  const { fits, why } = judgeFits({ installed, ...host });
  return { setting, active: fits ? 'local' : 'off', why };
}

type JudgeLogger = { info(msg: string): void; warn(msg: string): void };

/**
 * The judge for `config`. With `auto` on a host that fits, the local judge starts switched off and its timed probe
 * decides (judge-probe.ts): `onStatus` hears what it came to.
 */
export function createJudge(
  config: JudgeConfig,
  logger: JudgeLogger,
  env: NodeJS.ProcessEnv = process.env,
  status: JudgeStatus = judgeStatusOf(config, env),
  onStatus: (status: JudgeStatus) => void = () => {},
): BoundedJudge | undefined {
  const probing = status.setting === 'auto' && status.active === 'local';
  const bounds = { timeoutMs: config.ROUTER_JUDGE_TIMEOUT_MS, startsOff: probing };
  if (status.setting === 'auto')
    logger.info(
      `router: ROUTER_JUDGE=auto: the local judge ${probing ? 'fits this host; it is off until a judgement is timed' : 'is off'} (${status.why})`,
    );
  if (status.active === 'llm') {
    const model = config.ROUTER_JUDGE_MODEL ?? config.LLM_MODEL!;
    logger.info(`router: the judge is ${model} at ${config.LLM_BASE_URL ?? 'the OpenAI API'}`);
    return new BoundedJudge(
      new OpenAiJudge({
        model,
        ...(config.LLM_BASE_URL ? { baseURL: config.LLM_BASE_URL } : {}),
        ...(config.LLM_API_KEY ? { apiKey: config.LLM_API_KEY } : {}),
      }),
      bounds,
    );
  }
  if (status.active === 'local') {
    const modelPath = locateJudgeModel(config.ROUTER_JUDGE_MODEL, env);
    if (!modelPath) {
      logger.warn(
        `router: no judge: ${config.ROUTER_JUDGE_MODEL ?? 'the default judge model'} is not there (\`npm run models -- --judge\`)`,
      );
      return undefined;
    }
    if (!llamaRuntimeInstalled(env)) {
      logger.warn('router: no judge: node-llama-cpp is not installed (`npm run models -- --judge`)');
      return undefined;
    }
    logger.info(`router: the judge is ${modelPath} on ${config.ROUTER_JUDGE_THREADS} CPU threads`);
    const local = new LocalJudge({ modelPath, threads: config.ROUTER_JUDGE_THREADS });
    const judge = new BoundedJudge(local, { ...bounds, fillTimeoutMs: config.ROUTER_PARAMS_MODEL_TIMEOUT_MS });
    const warmed = local.warm().then(
      () => undefined,
      (error: unknown) => {
        const message = (error as Error).message ?? String(error);
        logger.warn(`router: the judge's model could not be loaded: ${message}`);
        return message;
      },
    );
    if (probing) {
      void warmed.then(async (failure) => {
        if (failure === undefined) await switchByProbe(judge, config.ROUTER_JUDGE_TIMEOUT_MS, status, logger, onStatus);
        else onStatus({ ...status, active: 'off', why: `its model could not be loaded: ${failure}` });
      });
    }
    return judge;
  }
  return undefined;
}

/** `auto`: times the judge on this host and switches it on only if it answers in time (judge-probe.ts). */
export async function switchByProbe(
  judge: BoundedJudge,
  timeoutMs: number,
  status: JudgeStatus,
  logger: JudgeLogger,
  onStatus: (status: JudgeStatus) => void,
  probeOptions: { attempts?: number; retryMs?: number } = {},
): Promise<void> {
  onStatus({
    ...status,
    active: 'off',
    probing: true,
    why: `${status.why}; timing a judgement on this host (off meanwhile)`,
  });
  const result = await probeJudge(judge.provider, {
    timeoutMs,
    ...probeOptions,
    onAttempt: (attempt, { why }) => logger.info(`router: ROUTER_JUDGE=auto: probe ${attempt}: ${why}`),
  });
  judge.switchOn(result.fits);
  onStatus({
    setting: status.setting,
    active: result.fits ? 'local' : 'off',
    why: `${status.why}; ${result.why}`,
    ...(result.ms !== undefined ? { probe_ms: Math.round(result.ms) } : {}),
  });
  logger.info(`router: ROUTER_JUDGE=auto: the local judge is ${result.fits ? 'on' : 'off'}: ${result.why}`);
}
