/** Exclusion clauses read from a card's description (router/head/exclusions.ts), table-driven, on examples written for it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exclusionClauses } from '../../router/head/exclusions';

type Case = [description: string, want: string[]];

const chinese: Case[] = [
  // The negations that open a clause.
  ['查询余额，不开发票', ['开发票']],
  ['不能代缴水电费', ['代缴水电费']],
  ['仅查询本人订单，无法查询他人订单', ['查询他人订单']],
  ['提供天气预报，也不提供空气质量指数', ['空气质量指数']],
  ['但不能代缴水电费；且不会保存银行卡号', ['代缴水电费', '保存银行卡号']],
  ['本服务并不处理跨境汇款。不负责线下网点的投诉', ['线下网点的投诉']],
  // Lists: split where each item carries its own negation, kept whole where one negation governs them all.
  ['不开发票、不追踪物流。', ['开发票', '追踪物流']],
  ['查询订单、不修改收货地址、不取消订单', ['修改收货地址', '取消订单']],
  ['不能修改、换开或作废已开具的发票', ['修改、换开或作废已开具的发票']],
  ['不受理退货、换货、补发', ['受理退货、换货、补发']],
  ['不退押金、无法延期、补办会员卡', ['退押金', '延期、补办会员卡']],
  // Parenthesised asides name who does it instead; they are not exclusions, and are taken out of the clause.
  ['预订酒店（不含机票），并不处理退订', ['退订']],
  ['（不负责售后）查询快递进度', []],
  ['不开具纸质发票(电子发票请找财务助手)', ['开具纸质发票']],
  // 不 inside a word that is not a negation.
  ['不同城市的天气都能查', []],
  ['不少用户用它查汇率', []],
  ['不仅能查余额，还能转账', []],
  ['不管订单大小都能退款', []],
  ['不断更新的财经新闻', []],
  ['不过节假日可能延迟到账', []],
  // Positive clauses, and a negation with too little left to be a request.
  ['支持退款、换货、补发，全国包邮', []],
  ['绝不', []],
  ['不行', []],
  // Repeated clauses count once.
  ['不开发票。不开发票', ['开发票']],
];

const english: Case[] = [
  ['Does not provide historical weather.', ['provide historical weather']],
  ['Cannot book flights; it does not issue refunds. Supports all major cities.', ['book flights', 'issue refunds']],
  ["Doesn't handle returns! Won't ship abroad?", ['handle returns', 'ship abroad']],
  ['Looks up exchange rates. It never stores card numbers.', ['stores card numbers']],
  ['Converts currencies. But also does not quote crypto prices.', ['quote crypto prices']],
  ['Translates text (does not handle audio).', []],
  ['Notes are kept for 30 days. Nothing to configure.', []],
  ['Returns the forecast for any city.', []],
  ['Cannot fix.', []],
];

/** Cases that failed before the fix that follows these tests in this branch. */
const falseNegations: Case[] = [
  // 不只 ("not only") and 不限 ("not limited to") widen what the capability does; they exclude nothing.
  ['不只查询天气，还能推荐穿衣', []],
  ['全国城市均可，不限城市', []],
  ['不限于快递，还能查询外卖配送', []],
  ['Not only translates text, it also summarises it.', []],
  // A typographic apostrophe, as descriptions pasted from documents often have it.
  ['Doesn’t handle refunds. Can’t book flights.', ['handle refunds', 'book flights']],
  // An English sentence right after a Chinese full stop, or on its own line.
  ['查询物流，不开发票。Does not issue invoices.', ['开发票', 'issue invoices']],
  ['查询物流，不开发票。 Does not issue invoices.', ['开发票', 'issue invoices']],
  ['Weather lookup\nDoes not provide historical data', ['provide historical data']],
];

describe('exclusionClauses', () => {
  for (const [group, cases] of [
    ['Chinese', chinese],
    ['English', english],
    ['fixed', falseNegations],
  ] as const) {
    for (const [description, want] of cases) {
      it(`exclusionClauses - ${group}: ${description} → ${JSON.stringify(want)}`, () =>
        assert.deepEqual(exclusionClauses(description), want));
    }
  }

  it('exclusionClauses - an empty description has no clause', () => assert.deepEqual(exclusionClauses(''), []));
});
