/** The judge as configured (router/judge/create-judge.ts): off, an OpenAI-compatible one, a local one only when installed. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createJudge, judgeStatusOf } from '../../router/judge/create-judge';
import { judgeFits, MIN_FREE_BYTES } from '../../router/judge/judge-auto';

const base = {
  ROUTER_JUDGE_TIMEOUT_MS: 3_000,
  ROUTER_PARAMS_MODEL_TIMEOUT_MS: 0,
  ROUTER_JUDGE_THREADS: 2,
  ROUTER_JUDGE_MODEL: undefined,
  LLM_MODEL: undefined,
  LLM_BASE_URL: undefined,
  LLM_API_KEY: undefined,
};

function logs() {
  const lines: string[] = [];
  return { lines, logger: { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(`warn: ${m}`) } };
}

describe('createJudge', () => {
  it('createJudge - off: no judge', () => {
    assert.equal(createJudge({ ...base, ROUTER_JUDGE: 'off' }, logs().logger), undefined);
  });
  it('createJudge - llm: the judge model, else LLM_MODEL, at the LLM endpoint', () => {
    const { lines, logger } = logs();
    assert.equal(
      createJudge({ ...base, ROUTER_JUDGE: 'llm', LLM_MODEL: 'chat-1', LLM_BASE_URL: 'http://127.0.0.1:9/v1' }, logger)
        ?.name,
      'llm:chat-1',
    );
    assert.equal(
      createJudge({ ...base, ROUTER_JUDGE: 'llm', LLM_MODEL: 'chat-1', ROUTER_JUDGE_MODEL: 'judge-1' }, logger)?.name,
      'llm:judge-1',
    );
    assert.match(lines[0]!, /the judge is chat-1 at http:\/\/127\.0\.0\.1:9\/v1/);
  });
  it('createJudge - local without its model or runtime: no judge, and the log says how to install it', () => {
    const { lines, logger } = logs();
    const env = { AGENT_REACH_CACHE_DIR: '/nonexistent/agent-reach-cache' };
    assert.equal(createJudge({ ...base, ROUTER_JUDGE: 'local' }, logger, env), undefined);
    assert.equal(
      createJudge({ ...base, ROUTER_JUDGE: 'local', ROUTER_JUDGE_MODEL: '/nonexistent/model.gguf' }, logger, env),
      undefined,
    );
    assert.equal(lines.length, 2);
    for (const line of lines) assert.match(line, /^warn: router: no judge: .*npm run models -- --judge/);
  });
  it('createJudge - auto: the local judge where it is installed and the host has 2 cores and 5 GiB free, else off, saying why', () => {
    const fits = { installed: true, cores: 2, freeBytes: MIN_FREE_BYTES };
    assert.deepEqual(judgeFits(fits), { fits: true, why: 'installed, 2 CPU cores, 5.0 GiB free' });
    assert.match(judgeFits({ ...fits, installed: false }).why, /not installed \(npm run models -- --judge\)/);
    assert.match(judgeFits({ ...fits, cores: 1 }).why, /1 CPU core\(s\); it needs 2/);
    assert.match(judgeFits({ ...fits, freeBytes: MIN_FREE_BYTES - 1 }).why, /GiB free; it needs 5 GiB/);
    const env = { AGENT_REACH_CACHE_DIR: '/nonexistent/agent-reach-cache' };
    const status = judgeStatusOf({ ROUTER_JUDGE: 'auto', ROUTER_JUDGE_MODEL: undefined }, env, {
      cores: 8,
      freeBytes: 64 * 1024 ** 3,
    });
    assert.deepEqual(status, {
      setting: 'auto',
      active: 'off',
      why: 'its model or runtime is not installed (npm run models -- --judge)',
    });
    const { lines, logger } = logs();
    assert.equal(createJudge({ ...base, ROUTER_JUDGE: 'auto' }, logger, env, status), undefined);
    assert.deepEqual(lines, [
      'router: ROUTER_JUDGE=auto: the local judge is off (its model or runtime is not installed (npm run models -- --judge))',
    ]);
    assert.equal(judgeStatusOf({ ROUTER_JUDGE: 'off', ROUTER_JUDGE_MODEL: undefined }).active, 'off');
  });
});
