/**
 * The judge a routing benchmark runs with: `--judge off|local|llm`, `--judge-timeout-ms` (the api's
 * defaults), the model and LLM settings from the environment as the api reads them.
 */
import type { BoundedJudge } from '../../router/judge/bounded-judge';
import { createJudge } from '../../router/judge/create-judge';

export type JudgeKind = 'off' | 'local' | 'llm';

/** The benchmark's judge options, for `parseArgs`. */
export const JUDGE_OPTIONS = {
  judge: { type: 'string', default: 'off' },
  'judge-timeout-ms': { type: 'string', default: '3000' },
  'params-timeout-ms': { type: 'string', default: '0' },
} as const;

export interface JudgeArgs {
  judge?: string;
  'judge-timeout-ms'?: string;
  /** How long the judge's model may fill parameters (0: never), as ROUTER_PARAMS_MODEL_TIMEOUT_MS. */
  'params-timeout-ms'?: string;
}

/** The judge asked for, or undefined with `--judge off`; a judge that cannot be made fails the benchmark. */
export function benchJudge(args: JudgeArgs): BoundedJudge | undefined {
  const kind = (args.judge ?? 'off') as JudgeKind;
  const judge = createJudge(
    {
      ROUTER_JUDGE: kind,
      ROUTER_JUDGE_MODEL: process.env.ROUTER_JUDGE_MODEL,
      ROUTER_JUDGE_TIMEOUT_MS: Number(args['judge-timeout-ms'] ?? 3000),
      ROUTER_PARAMS_MODEL_TIMEOUT_MS: Number(args['params-timeout-ms'] ?? 0),
      ROUTER_JUDGE_THREADS: Number(process.env.ROUTER_JUDGE_THREADS ?? 2),
      LLM_MODEL: process.env.LLM_MODEL,
      LLM_BASE_URL: process.env.LLM_BASE_URL,
      LLM_API_KEY: process.env.LLM_API_KEY,
    },
    { info: (m) => console.log(m), warn: (m) => console.log(m) },
  );
  if (kind !== 'off' && !judge) throw new Error(`--judge ${kind}: no judge could be made (see above)`);
  return judge;
}
