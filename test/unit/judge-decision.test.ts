/** The judge's decision logic (router/judge/decision.ts, question.ts): when it reads, what its answer does. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BIAS,
  CLOSE,
  combinedScore,
  CROSS_LINGUAL_LENIENCE,
  FAR_BIAS,
  HEAD_WEIGHT,
  judgedVerdict,
  judgeReason,
  NARROW_LOSS,
  NEAR_BORDER,
  NEAR_HEAD_WEIGHT,
  NO_FENCE_BIAS,
  UNCERTAIN_ABOVE,
  type HeadView,
} from '../../router/judge/decision';
import { cpuBinaryPackage } from '../../router/judge/judge-files';
import { answerWord, questionText, yesProbability } from '../../router/judge/question';
import { candidatesOf } from '../../router/candidates';
import { agentFromCard } from '../../bench/lib/routing-data';

const view = (v: Partial<HeadView>): HeadView => ({ verdict: 'accept', best: 0.6, accept: 0.3, second: 0.05, ...v });

describe('judgeReason', () => {
  it('judgeReason - a clear win on a card without a border is not read', () => {
    assert.equal(judgeReason(view({ best: 0.3 * (UNCERTAIN_ABOVE + 1) })), undefined);
  });
  it('judgeReason - a narrow win is read as uncertain', () => {
    assert.equal(judgeReason(view({ best: 0.3 * (UNCERTAIN_ABOVE - 0.1) })), 'uncertain');
  });
  it('judgeReason - a request near a fence is read however sure the head is; one far from every fence is not', () => {
    assert.equal(judgeReason(view({ best: 0.99, gap: -NEAR_BORDER + 0.005 })), 'border');
    assert.equal(judgeReason(view({ best: 0.99, gap: 0.02 })), 'border');
    assert.equal(judgeReason(view({ best: 0.99, gap: -NEAR_BORDER - 0.005 })), undefined);
  });
  it('judgeReason - a close runner-up is read', () => {
    assert.equal(
      judgeReason(view({ best: 0.3 * (UNCERTAIN_ABOVE + 1), second: 0.3 * (UNCERTAIN_ABOVE + 1) * CLOSE })),
      'close',
    );
  });
  it('judgeReason - refusals where a card states a fence, ambiguous and escalated verdicts are not read (left to the head, the caller, the LLM)', () => {
    assert.equal(judgeReason(view({ verdict: 'refuse', best: 0.29, gap: 0.05 })), undefined);
    assert.equal(judgeReason(view({ verdict: 'refuse', best: 0.29, gap: -NEAR_BORDER - 0.05 })), undefined);
    assert.equal(judgeReason(view({ verdict: 'ambiguous', best: 0.31 })), undefined);
    assert.equal(judgeReason(view({ verdict: 'escalate', best: 0.25 })), undefined);
  });
  it('judgeReason - where no card states a fence, a narrow loss is read; a refusal far under the threshold is not', () => {
    assert.equal(judgeReason(view({ verdict: 'refuse', best: 0.3 * NARROW_LOSS + 0.001 })), 'narrow_loss');
    assert.equal(judgeReason(view({ verdict: 'refuse', best: 0.3 * NARROW_LOSS - 0.001 })), undefined);
  });
  it('judgeReason - no threshold or no probability: nothing to weigh', () => {
    assert.equal(judgeReason(view({ accept: 0 })), undefined);
    assert.equal(judgeReason(view({ best: 0 })), undefined);
  });
});

describe('combined verdict', () => {
  it('combinedScore - the judge log-odds plus the weighed head log-ratio, less the bias: near a fence NEAR_HEAD_WEIGHT and BIAS, far from one HEAD_WEIGHT and FAR_BIAS, where no card has one NO_FENCE_BIAS', () => {
    const near = combinedScore(0.8, { best: 0.6, accept: 0.3, gap: -NEAR_BORDER / 2 });
    assert.ok(Math.abs(near - (Math.log(4) + NEAR_HEAD_WEIGHT * Math.log(2) - BIAS)) < 1e-9);
    const far = combinedScore(0.8, { best: 0.6, accept: 0.3, gap: -NEAR_BORDER - 0.01 });
    assert.ok(Math.abs(far - (Math.log(4) + HEAD_WEIGHT * Math.log(2) - FAR_BIAS)) < 1e-9);
    const unfenced = combinedScore(0.8, { best: 0.6, accept: 0.3 });
    assert.ok(Math.abs(unfenced - (Math.log(4) + HEAD_WEIGHT * Math.log(2) - NO_FENCE_BIAS)) < 1e-9);
  });
  it('judgedVerdict - where no card states a fence, only an out-of-scope-strength "no" refuses, and a clear "yes" takes back a narrow loss', () => {
    assert.equal(judgedVerdict(0.1, { best: 0.33, accept: 0.3 }), 'accept');
    assert.equal(judgedVerdict(0.1, { best: 0.33, accept: 0.3, gap: -NEAR_BORDER - 0.01 }), 'refuse');
    assert.equal(judgedVerdict(0.02, { best: 0.33, accept: 0.3 }), 'refuse');
    assert.equal(judgedVerdict(0.5, { best: 0.3 * NARROW_LOSS, accept: 0.3 }), 'accept');
    assert.equal(judgedVerdict(0.05, { best: 0.3 * NARROW_LOSS, accept: 0.3 }), 'refuse');
  });
  it('judgedVerdict - near a fence a very sure head counts for less: a lukewarm "no" refuses what it would keep elsewhere', () => {
    const sure = { best: 1.2, accept: 0.3, gap: 0 };
    assert.equal(judgedVerdict(0.2, sure), 'refuse');
    assert.equal(judgedVerdict(0.2, sure, { head: HEAD_WEIGHT, bias: BIAS }), 'accept');
    assert.equal(judgedVerdict(0.2, { best: 1.2, accept: 0.3 }), 'accept');
  });
  it('judgedVerdict - a lukewarm "no" refuses a narrow win near a fence (a near miss), not far from every fence', () => {
    assert.equal(judgedVerdict(0.3, { best: 0.33, accept: 0.3, gap: 0 }), 'refuse');
    assert.equal(judgedVerdict(0.3, { best: 0.33, accept: 0.3 }), 'accept');
    assert.equal(judgedVerdict(0.05, { best: 0.33, accept: 0.3 }), 'refuse');
  });
  it('judgedVerdict - a cross-lingual reading of an acceptance has its bias lowered: a lukewarm "no" near a fence keeps it, a confident one still refuses; a narrow loss is read as before', () => {
    const narrow = { best: 0.33, accept: 0.3, gap: 0 };
    const crossLingual = { ...narrow, crossLingual: true };
    assert.ok(Math.abs(combinedScore(0.3, crossLingual) - combinedScore(0.3, narrow) - CROSS_LINGUAL_LENIENCE) < 1e-9);
    assert.equal(judgedVerdict(0.3, narrow), 'refuse');
    assert.equal(judgedVerdict(0.3, crossLingual), 'accept');
    assert.equal(judgedVerdict(0.05, crossLingual), 'refuse');
    const narrowLoss = { best: 0.3 * NARROW_LOSS, accept: 0.3 };
    assert.equal(combinedScore(0.1, { ...narrowLoss, crossLingual: true }), combinedScore(0.1, narrowLoss));
  });
  it('judgedVerdict - a confident no overrules a narrow acceptance, a confident yes keeps it', () => {
    assert.equal(judgedVerdict(0.02, { best: 0.33, accept: 0.3 }), 'refuse');
    assert.equal(judgedVerdict(0.98, { best: 0.33, accept: 0.3 }), 'accept');
  });
  it('judgedVerdict - the head can outweigh the judge: a very sure head keeps a lukewarm no', () => {
    const weights = { head: 1, bias: 0 };
    assert.equal(judgedVerdict(0.4, { best: 0.9, accept: 0.3 }, weights), 'accept');
    assert.equal(judgedVerdict(0.4, { best: 0.31, accept: 0.3 }, weights), 'refuse');
  });
  it('judgedVerdict - certainty is capped: P(yes)=0 still counts as a finite no', () => {
    assert.ok(Number.isFinite(combinedScore(0, { best: 0.5, accept: 0.3 })));
    assert.ok(Number.isFinite(combinedScore(1, { best: 0.5, accept: 0.3 })));
  });
});

describe('the question', () => {
  const [card] = candidatesOf([
    agentFromCard(
      {
        agent_id: 'invoice-agent',
        name: '发票Agent',
        description: 'invoices',
        tags: [],
        capabilities: [
          {
            name: 'issue_invoice',
            description: '为已完成的订单开具电子发票。不能修改、换开或作废已开具的发票。',
            examples: [
              '帮我开张发票',
              '开个专票',
              '发票开一下',
              ...Array.from({ length: 7 }, (_, i) => `例子${i + 4}`),
              '第十一个例子',
            ],
          },
        ],
      },
      't',
    ),
  ]);
  it('questionText - shows what the card does, ten examples, its exclusions and the request', () => {
    const text = questionText({ intent: '发票抬头写错了，帮我改一下', candidate: card! });
    assert.match(text, /发票Agent — issue invoice/);
    assert.match(text, /"帮我开张发票"; "开个专票"; "发票开一下"; "例子4"; .*"例子10"/);
    assert.doesNotMatch(text, /第十一个例子/);
    assert.match(text, /It does NOT: 修改、换开或作废已开具的发票/);
    assert.match(text, /Request: 发票抬头写错了，帮我改一下/);
  });
  it('questionText - counter-examples are shown when the card has them', () => {
    const withCounter = { ...card!, capability: { ...card!.capability, counter_examples: ['作废发票'] } };
    assert.match(
      questionText({ intent: 'x', candidate: withCounter }),
      /Requests it does not take, e\.g\.: "作废发票"/,
    );
  });
  it('questionText - lessons (requests reported misrouted) are shown as counter-examples, the latest three', () => {
    const taught = {
      ...card!,
      capability: { ...card!.capability, counter_examples: ['作废发票'] },
      misroutes: ['一', '二', '发票抬头改成公司', '把发票作废重开'],
    };
    const text = questionText({ intent: 'x', candidate: taught });
    assert.match(text, /Requests it does not take, e\.g\.: "作废发票"; "二"; "发票抬头改成公司"; "把发票作废重开"/);
    assert.doesNotMatch(text, /"一"/);
  });
  it("questionText - a very long request is cut, so it cannot fill the model's context", () => {
    const text = questionText({ intent: '发'.repeat(5_000), candidate: card! });
    assert.ok(text.length < 2_000, `${text.length} characters`);
  });
  it('answerWord - yes and no in any case, with a space or a full stop; anything else is no answer', () => {
    assert.equal(answerWord(' Yes'), 'yes');
    assert.equal(answerWord('NO.'), 'no');
    assert.equal(answerWord('Not'), undefined);
    assert.equal(answerWord('The'), undefined);
  });
  it('yesProbability - renormalised over yes and no; no mass on either is an abstention', () => {
    assert.equal(yesProbability(3, 1), 0.75);
    assert.equal(yesProbability(0, 0), undefined);
  });
});

describe('judge runtime', () => {
  it('cpuBinaryPackage - the CPU build for the platform, never a GPU variant', () => {
    assert.equal(cpuBinaryPackage('linux', 'x64'), '@node-llama-cpp/linux-x64');
    assert.equal(cpuBinaryPackage('darwin', 'arm64'), '@node-llama-cpp/mac-arm64-metal');
    assert.equal(cpuBinaryPackage('win32', 'x64'), '@node-llama-cpp/win-x64');
  });
});
