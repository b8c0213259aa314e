/** Parameter extraction (router/extraction.ts and router/params/*), table-driven, on examples written for it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractParameters, extractParametersSync, missingMessage, missingRequired } from '../../router/extraction';
import { datesIn, exampleOffset, formatDateTime } from '../../router/params/dates';
import { enumValueBySimilarity, enumValueLexical, valueDescriptions } from '../../router/params/enums';
import { numbersIn, parseChineseNumber, parseEnglishNumber } from '../../router/params/numbers';
import { quantityFor } from '../../router/params/quantities';
import { timeWindowFor } from '../../router/params/time-window';
import { specificity } from '../../router/params/identifiers';

/** Wednesday 2025-03-12, 09:30 in China. */
const NOW = new Date('2025-03-12T09:30:00+08:00');

describe('numbers', () => {
  const cases: [string, number | undefined][] = [
    ['三十五', 35],
    ['两千', 2000],
    ['一百二十', 120],
    ['十五', 15],
    ['两千零五', 2005],
    ['三万五千', 35000],
    ['一万二', 12000],
    ['一百五', 150],
    ['两千五', 2500],
    ['一千二百五', 1250],
    ['十二万五', 125000],
    ['一百零五', 105],
    ['一万零二', 10002],
    ['二零二五', 2025],
    ['甲', undefined],
  ];
  for (const [text, want] of cases)
    it(`numbers - Chinese ${text} → ${want}`, () => assert.equal(parseChineseNumber(text), want));

  const english: [string, number | undefined][] = [
    ['twenty one', 21],
    ['two hundred and five', 205],
    ['a dozen', 12],
    ['three thousand', 3000],
    ['banana', undefined],
  ];
  for (const [text, want] of english)
    it(`numbers - English ${text} → ${want}`, () => assert.equal(parseEnglishNumber(text), want));

  it('numbers - mentions in mixed text: Arabic with a Chinese scale, decimals, never inside an id', () => {
    assert.deepEqual(
      numbersIn('预算1.5万，付了2,300.50，编号E20931').map((n) => n.value),
      [15000, 2300.5],
    );
    assert.deepEqual(
      numbersIn('about twenty five bucks').map((n) => n.value),
      [25],
    );
  });
});

describe('quantities', () => {
  const money = { type: 'number', description: '退款金额（元）' };
  const weight = { type: 'number', description: '包裹重量（公斤）' };
  const grams = { type: 'integer', description: 'Weight in grams' };
  const days = { type: 'integer', minimum: 1, maximum: 30, description: 'Number of days' };
  const cases: [string, string, object, number | undefined][] = [
    ['退我三十五元', 'amount', money, 35],
    ['refund 35 bucks please', 'amount', money, 35],
    ['一百二十块钱能退吗', 'amount', money, 120],
    ['退款金额 45.8', 'amount', money, 45.8],
    ['它值¥1999', 'amount', money, 1999],
    ['refund RMB 45, item damaged', 'amount', money, 45],
    ['refund 1.2k, not as described', 'amount', money, 1200],
    ['丢的货值3w', 'amount', money, 30000],
    ['里面东西值两千五', 'amount', money, 2500],
    ['等了五天还没到', 'amount', money, undefined],
    ['箱子大概八斤', 'weight_kg', weight, 4],
    ['a 3 kg box', 'weight_kg', weight, 3],
    ['about 11 lbs', 'weight_kg', weight, 4.989516],
    ['2kg的包裹', 'weight_g', grams, 2000],
    ['接下来两周的安排', 'days', days, 14],
    ['next 4 days', 'days', days, 4],
    ['未来100天', 'days', days, undefined],
    ['一个月内别打', 'days', days, 30],
    ['please stop calling for a month', 'days', days, 30],
    ['a few days', 'days', days, undefined],
    ['for 2 years', 'days', { type: 'integer', maximum: 3650 }, 730],
  ];
  for (const [text, name, schema, want] of cases)
    it(`quantities - ${text} → ${name}=${want}`, () => assert.equal(quantityFor(text, name, schema), want));

  it('quantities - full-width digits and decimal point, as Chinese input methods type them', () => {
    assert.deepEqual(extractParametersSync('申请退款￥８９．９', { properties: { amount: money } }), { amount: 89.9 });
  });
});

describe('dates', () => {
  const dateOf = (text: string) =>
    datesIn(text, NOW, 480).map(
      (m) =>
        `${m.start.year}-${m.start.month}-${m.start.day}${m.start.hour !== undefined ? ` ${m.start.hour}:${m.start.minute}` : ''}`,
    );
  const cases: [string, string[]][] = [
    ['明天', ['2025-3-13']],
    ['后天上午十点', ['2025-3-14 10:0']],
    ['下周三', ['2025-3-19']],
    ['周五下午', ['2025-3-14']],
    ['3月5号', ['2025-3-5']],
    ['last seen on March 3', ['2025-3-3']],
    ["hasn't moved since last Thursday", ['2025-3-6']],
    ['this past Monday', ['2025-3-10']],
    ['1月5号', ['2026-1-5']],
    ['Dec 30 to Jan 2', ['2025-12-30']],
    ['下下周三', ['2025-3-26']],
    ['下个月5号', ['2025-4-5']],
    ['上个月3号', ['2025-2-3']],
    ['下下周一请婚假，请到周五', ['2025-3-24', '2025-3-28']],
    ['周一发货，周五到', ['2025-3-17', '2025-3-21']],
    ['2025年4月1日下午2点', ['2025-4-1 14:0']],
    ['next Friday', ['2025-3-21']],
    ['tomorrow 3pm', ['2025-3-13 15:0']],
    ['call me back tomorrow around 4pm', ['2025-3-13 16:0']],
    ['call back this afternoon around 4', ['2025-3-12 16:0']],
    ['ring me back around 3 this afternoon', ['2025-3-12 15:0']],
    ['pick up tomorrow, around 2 kg', ['2025-3-13']],
    ['pick up at 12 Renmin Rd, Guangzhou on 2025-03-20', ['2025-3-20']],
    ['3号来取件', ['2025-4-3']],
    ['20号来取件', ['2025-3-20']],
    ['3号上午9点到11点来取件', ['2025-4-3 9:0']],
    ['pick it up on the 3rd, 9-11am', ['2025-4-3 9:0']],
    ['请病假 20号到22号', ['2025-3-20', '2025-3-22']],
    ['off from Mar 20th through the 22nd', ['2025-3-20', '2025-3-22']],
    ['28号到2号出差', ['2025-3-28', '2025-4-2']],
    ['3号之后就没动静了', ['2025-3-3']],
    ['last seen on the 3rd', ['2025-3-3']],
    ['送到湖南路25号3号楼', []],
    ['送到湖南路 25号', []],
    ['the 2nd time this week', []],
    ['from 2025-05-06 to 2025-05-09', ['2025-5-6', '2025-5-9']],
    ['4月8号到11号请假', ['2025-4-8']],
    ['2024年10月8日至11日', ['2024-10-8']],
    ['no date here', []],
    ['no updates for two weeks', []],
    ['it has been 5 days', []],
    ['deliver in two weeks', ['2025-3-26']],
    ['it shipped two weeks ago', ['2025-2-26']],
  ];
  for (const [text, want] of cases) it(`dates - ${text}`, () => assert.deepEqual(dateOf(text), want));

  it('dates - a date-time needs a stated time and carries the offset the schema shows', () => {
    assert.equal(exampleOffset('ISO 8601，如 2024-07-01T14:00:00+08:00'), 480);
    assert.equal(exampleOffset('Start, e.g. 2024-07-01T14:00:00Z'), 0);
    assert.equal(formatDateTime({ year: 2025, month: 3, day: 13 }, 480), undefined);
    assert.equal(
      formatDateTime({ year: 2025, month: 3, day: 13, hour: 15, minute: 5 }, -300),
      '2025-03-13T15:05:00-05:00',
    );
  });

  it('dates - properties get the format they ask for, relative to the injected clock', async () => {
    const schema = {
      properties: {
        visit_at: { type: 'string', format: 'date-time', description: '上门时间，如 2024-07-01T14:00:00+08:00' },
        ship_date: { type: 'string', format: 'date' },
      },
    };
    assert.deepEqual(await extractParameters('明天下午三点上门', schema, { now: NOW }), {
      visit_at: '2025-03-13T15:00:00+08:00',
    });
    assert.deepEqual(
      await extractParameters(
        'ship it next Monday',
        { properties: { ship_date: schema.properties.ship_date } },
        { now: NOW },
      ),
      { ship_date: '2025-03-17' },
    );
    const leave = {
      properties: { start_date: { type: 'string', format: 'date' }, end_date: { type: 'string', format: 'date' } },
    };
    const inclusive = {
      properties: {
        start_date: { type: 'string', format: 'date' },
        end_date: { type: 'string', format: 'date', description: 'Last day of leave (ISO 8601), inclusive' },
      },
    };
    const ranges: [string, object, [string, string], string?][] = [
      ['请假 2025-04-02 到 2025-04-03', leave, ['2025-04-02', '2025-04-03']],
      ['off on 2025-04-07', leave, ['2025-04-07', '2025-04-07']],
      [
        'maternity leave from April 1 for 98 days',
        inclusive,
        ['2025-04-01', '2025-07-07'],
        'a span of days ends an inclusive range',
      ],
      ['two days of annual leave starting the day after tomorrow', inclusive, ['2025-03-14', '2025-03-15']],
      ['请三天病假，从今天开始', inclusive, ['2025-03-12', '2025-03-14']],
      ['请三天病假，从今天开始', leave, ['2025-03-12', '2025-03-12'], 'not when the end may be the day after'],
      ['10月8号到11号请年假', leave, ['2025-10-08', '2025-10-11'], 'one month, a range of days'],
      ['E12345 3/17-3/19 annual leave', leave, ['2025-03-17', '2025-03-19'], 'month/day to month/day'],
      ['3.17-3.19请假', leave, ['2025-03-17', '2025-03-19']],
      ['1月8号到11号', leave, ['2026-01-08', '2026-01-11'], 'a month long past is next year'],
      ['2月8号到11号补请假', leave, ['2025-02-08', '2025-02-11'], 'a day within the last two months is this year'],
      [
        '2024年4月14号到4月16号请年假',
        leave,
        ['2024-04-14', '2024-04-16'],
        "a range's end without its year is in its start's year",
      ],
      [
        '下周三下午想请半天假',
        leave,
        ['2025-03-19', '2025-03-19'],
        'a part of the day belongs to the day before it, and is no date of its own',
      ],
    ];
    for (const [text, schema, [start_date, end_date], why] of ranges)
      assert.deepEqual(await extractParameters(text, schema, { now: NOW }), { start_date, end_date }, why ?? text);
    assert.deepEqual(datesIn('退款3.5-4.5元之间', NOW, 480), [], 'a range of amounts is no range of dates');
  });

  it("dates - a range's end that names no day is on the start's day, in its half of the day", () => {
    const [window] = datesIn('明天下午三点到五点上门取件', NOW, 480);
    assert.deepEqual(window!.end, { year: 2025, month: 3, day: 13, hour: 17, minute: 0 });
    const [week] = datesIn('from Monday to Friday', NOW, 480);
    assert.notDeepEqual(week!.end!.day, week!.start.day, 'an end that names its day keeps it');
  });
});

describe('time windows', () => {
  const windows = ['08:00-10:00', '10:00-12:00', '14:00-16:00', '16:00-18:00'];
  const cases: [string, string | undefined][] = [
    ['下午两点到四点来', '14:00-16:00'],
    ['上午十点到十二点', '10:00-12:00'],
    ['明早8-10点上门取件', '08:00-10:00'],
    ['3-5天内来取，下午两点到四点', '14:00-16:00'],
    ['4-6pm works', '16:00-18:00'],
    ['on 2024-09-10 between 4 and 6 pm', '16:00-18:00'],
    ['早上8点半来拿', '08:00-10:00'],
    ['晚上九点', undefined],
    ['随时都行', undefined],
    ['明天下午来取件，2点到4点之间', '14:00-16:00'],
    ['明天4点到6点来取', '16:00-18:00'],
    ['明天上午来，8点到10点', '08:00-10:00'],
    ['凌晨2点到4点', undefined],
    ['tomorrow afternoon 2 to 4', '14:00-16:00'],
    ['Saturday morning between 8 and 10', '08:00-10:00'],
  ];
  for (const [text, want] of cases)
    it(`time windows - ${text} → ${want}`, () => assert.equal(timeWindowFor(text, windows), want));
});

describe('enums', () => {
  const reason = { type: 'string', enum: ['not_received', 'quality_issue', 'wrong_item', 'damaged', 'other'] };
  const scope = { type: 'string', enum: ['calls_only', 'sms_only', 'all'] };
  const level = { type: 'string', enum: ['low', 'medium', 'high'], description: '级别：低/中/高' };
  const severity = { type: 'string', enum: ['blue', 'yellow', 'orange', 'red'] };
  const afterSales = { type: 'string', enum: ['return_refund', 'exchange', 'repair'] };
  const cancel = { type: 'string', enum: ['ordered_by_mistake', 'changed_mind', 'found_cheaper', 'delivery_too_slow'] };
  const cases: [string, string, object, string | undefined][] = [
    ['快递到现在都没收到', 'reason', reason, 'not_received'],
    ['屏幕用两天就不亮了', 'reason', reason, 'quality_issue'],
    ['they sent me the wrong item', 'reason', reason, 'wrong_item'],
    ['外箱压坏了，里面也破损', 'reason', reason, 'damaged'],
    ['the parcel never arrived', 'reason', reason, 'not_received'],
    ['order 2025 never showed up, refund me', 'reason', reason, 'not_received'],
    ['it came, no quality problem, but it is the wrong item', 'reason', reason, 'wrong_item'],
    ['我没说什么', 'reason', reason, undefined],
    ['短信不要再发了', 'scope', scope, 'sms_only'],
    ['电话和短信都不要了', 'scope', scope, 'all'],
    ['别再发短信也别打电话了', 'scope', scope, 'all'],
    ['别再打了 也别发短信', 'scope', scope, 'all'],
    ['unsubscribe me from all calls and messages', 'scope', scope, 'all'],
    ['取消吧，发货太慢了不要了', 'reason', cancel, 'delivery_too_slow'],
    ['电话别打了，短信还能发', 'scope', scope, 'calls_only'],
    ['短信和电话哪个便宜', 'reason', reason, undefined],
    ['衣服有破洞', 'reason', reason, 'quality_issue'],
    ['the shirt has a hole in it', 'reason', reason, 'quality_issue'],
    ['优先级设成高', 'level', level, 'high'],
    ['yellow or red warnings', 'min_severity', severity, 'yellow'],
    ['I want it repaired', 'type', afterSales, 'repair'],
    ['can it be exchanged for a new one', 'type', afterSales, 'exchange'],
    ['a repairman came', 'type', afterSales, undefined],
  ];
  for (const [text, name, schema, want] of cases)
    it(`enums - ${text} → ${want}`, () => assert.equal(enumValueLexical(text.toLowerCase(), name, schema), want));

  const embedFake = (table: Record<string, number[]>) => {
    const vector = (t: string) =>
      Float32Array.from(Object.entries(table).find(([k]) => t.includes(k))?.[1] ?? [0, 0, 1]);
    return { embedQuery: async (t: string) => vector(t), embedDocuments: async (texts: string[]) => texts.map(vector) };
  };

  it('enums - by similarity only when nothing matched by words and one value clearly leads', async () => {
    const schema = { type: 'string', enum: ['quality_issue', 'wrong_item'] };
    const clear = embedFake({ 东西不对劲: [1, 0, 0], quality: [0.9, 0.1, 0], wrong: [0, 1, 0] });
    assert.equal(await enumValueBySimilarity(await clear.embedQuery('东西不对劲'), schema, clear), 'quality_issue');
    const close = embedFake({ 东西不对劲: [1, 1, 0], quality: [1, 0.9, 0], wrong: [0.9, 1, 0] });
    assert.equal(await enumValueBySimilarity(await close.embedQuery('东西不对劲'), schema, close), undefined);
    const props = { properties: { reason: schema } };
    assert.deepEqual(await extractParameters('东西不对劲', props, { embed: clear }), { reason: 'quality_issue' });
    assert.deepEqual(await extractParameters('东西不对劲', props), {});
    let asked = 0;
    const counting = {
      embedQuery: async (t: string) => ((asked += 1), clear.embedQuery(t)),
      embedDocuments: async (texts: string[]) => ((asked += texts.length), clear.embedDocuments(texts)),
    };
    assert.deepEqual(await extractParameters('发错货了', props, { embed: counting }), { reason: 'wrong_item' });
    assert.equal(asked, 0, 'a lexical match never calls the model');
  });
});

describe('identifiers, places, addresses, free text', () => {
  const order = { type: 'string', pattern: '^\\d{8,20}$', description: '订单号，8-20位数字' };
  const phone = { type: 'string', pattern: '^1[3-9]\\d{9}$', description: '手机号' };
  const tracking = { type: 'string', pattern: '^[A-Za-z0-9]{8,30}$', description: '快递单号（运单号）' };

  it('identifiers - a narrower pattern outranks a wider one, a cue outranks both', () => {
    assert.ok(specificity('^1[3-9]\\d{9}$') > specificity('^\\d{8,20}$'));
    const schema = { properties: { order_id: order, phone } };
    assert.deepEqual(extractParametersSync('电话15611223344 订单号 99887766554433', schema), {
      order_id: '99887766554433',
      phone: '15611223344',
    });
    assert.deepEqual(extractParametersSync('order 13700001111 please', { properties: { order_id: order, phone } }), {
      order_id: '13700001111',
    });
    assert.deepEqual(
      extractParametersSync('韵达 4312009876543 到哪了', { properties: { tracking_no: tracking, order_id: order } }),
      { tracking_no: '4312009876543' },
    );
  });

  it('identifiers - a word of the sentence is no identifier, though the pattern accepts it; a cue or capitals make one', () => {
    const schema = { properties: { tracking_no: tracking, order_id: order } };
    assert.deepEqual(extractParametersSync('Could you check the shipping progress for order 20250418220931?', schema), {
      order_id: '20250418220931',
    });
    assert.deepEqual(extractParametersSync('my neighbours never got parcel 20250507661208', schema), {
      tracking_no: '20250507661208',
    });
    assert.deepEqual(extractParametersSync('waybill ABCDEFGHJK is late', schema), { tracking_no: 'ABCDEFGHJK' });
    assert.deepEqual(extractParametersSync('tracking number Yt8823416', schema), { tracking_no: 'Yt8823416' });
    assert.deepEqual(extractParametersSync('where is PKGCODEABCD now', schema), { tracking_no: 'PKGCODEABCD' });
  });

  it('identifiers - a code typed in lower case is taken in the capitals its pattern asks for', () => {
    const schema = { properties: { employee_id: { type: 'string', pattern: '^E\\d{5,8}$' } } };
    assert.deepEqual(extractParametersSync('工号e12345 下周一请婚假', schema), { employee_id: 'E12345' });
    assert.deepEqual(extractParametersSync('工号x12345', schema), {});
  });

  it('identifiers - a number typed with a letter for a digit (O for 0, l for 1) is taken as meant', () => {
    const schema = { properties: { order_id: { type: 'string', pattern: '^\\d{8,20}$' } } };
    assert.deepEqual(extractParametersSync('单号2025O311482910啥状态', schema), { order_id: '20250311482910' });
    assert.deepEqual(extractParametersSync('order 2025031l482910', schema), { order_id: '20250311482910' });
    assert.deepEqual(extractParametersSync('order 2025OOO11482910', schema), {}, 'three letters are no typo');
  });

  it('durations - a span of months is a number of days, not a date taken from the text', () => {
    const stop = {
      properties: {
        phone,
        duration_days: { type: 'integer', minimum: 1, maximum: 3650, description: '免打扰天数，缺省为永久' },
      },
    };
    assert.deepEqual(extractParametersSync('13712345678 三个月内别再打了', stop, { now: NOW }), {
      phone: '13712345678',
      duration_days: 90,
    });
  });

  it("identifiers - an open map's keys named in its description's example take ids like properties", () => {
    const call = {
      properties: {
        phone,
        variables: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: '模板变量，如 {"order_id": "..."}',
        },
      },
    };
    assert.deepEqual(extractParametersSync('给13712340000打电话说订单2024090112发货要延迟', call), {
      phone: '13712340000',
      variables: { order_id: '2024090112' },
    });
    assert.deepEqual(extractParametersSync('给13712340000打电话说发货要延迟', call), { phone: '13712340000' });
    const unnamed = { properties: { variables: { type: 'object', additionalProperties: { type: 'string' } } } };
    assert.deepEqual(extractParametersSync('订单2024090112发货要延迟', unnamed), {}, 'no example, no keys');
  });

  it('identifiers - ids without a pattern need a cue or their name in the token', () => {
    const schema = {
      properties: { ticket_id: { type: 'string', description: '工单号' }, batch_no: { type: 'string' } },
    };
    assert.deepEqual(extractParametersSync('工单号 T-7781 和 batch BN2025031', schema), {
      ticket_id: 'T-7781',
      batch_no: 'BN2025031',
    });
    assert.deepEqual(extractParametersSync('随便 4455 看看', schema), {});
    const audit = { properties: { agent_employee_id: { type: 'string', description: '客服工号' } } };
    assert.deepEqual(extractParametersSync('QA the recorded calls from rep #6120', audit), {
      agent_employee_id: '6120',
    });
    assert.deepEqual(extractParametersSync('prep 6120 calls', audit), {}, 'a cue is a whole word: "prep" is not "rep"');
    const parcel = { properties: { tracking_no: { type: 'string' } } };
    assert.deepEqual(extractParametersSync('EMS 99887766 is late', parcel), { tracking_no: '99887766' });
    assert.deepEqual(
      extractParametersSync('5 items 99887766 missing', parcel),
      {},
      '"items" does not end in the cue "ems"',
    );
    const list = { properties: { order_ids: { type: 'array', items: order, minItems: 2 } } };
    assert.deepEqual(extractParametersSync('把 55550001111 和 55550002222 合一起', list), {
      order_ids: ['55550001111', '55550002222'],
    });
    assert.deepEqual(extractParametersSync('只有 55550001111', list), {});
  });

  it('identifiers - an integer id (README\'s {"order_id": {"type": "integer"}}) takes the digits after its cue, as a number', () => {
    const schema = {
      type: 'object',
      required: ['order_id'],
      properties: { order_id: { type: 'integer' }, amount: { type: 'number' } },
    };
    assert.deepEqual(extractParametersSync('refund order 1042', schema), { order_id: 1042 });
    assert.deepEqual(extractParametersSync('refund order #1042, 25.5 dollars back', schema), {
      order_id: 1042,
      amount: 25.5,
    });
    assert.deepEqual(extractParametersSync('订单2024090112要退款，退35元', schema), {
      order_id: 2024090112,
      amount: 35,
    });
    // No cue, too short, not digits only, or out of the schema's range: nothing guessed.
    assert.deepEqual(
      extractParametersSync('refund 1042 please', { properties: { order_id: { type: 'integer' } } }),
      {},
    );
    assert.deepEqual(extractParametersSync('refund order 77', { properties: { order_id: { type: 'integer' } } }), {});
    assert.deepEqual(
      extractParametersSync('refund order A1042', { properties: { order_id: { type: 'integer' } } }),
      {},
    );
    assert.deepEqual(
      extractParametersSync('refund order 1042', { properties: { order_id: { type: 'integer', maximum: 999 } } }),
      {},
    );
  });

  it('places - cities in Chinese and English, with from/to roles', () => {
    const fee = {
      properties: {
        from_city: { type: 'string', description: '始发城市' },
        to_city: { type: 'string', description: '目的城市' },
      },
    };
    const cases: [string, object][] = [
      ['从苏州发到昆明多少钱', { from_city: '苏州', to_city: '昆明' }],
      ['青岛→大连', { from_city: '青岛', to_city: '大连' }],
      ['寄去长沙', {}],
      ['寄到长沙', { to_city: '长沙' }],
      ['上海寄北京多少钱', { from_city: '上海', to_city: '北京' }],
      ['ship from Wuxi to Harbin', { from_city: 'Wuxi', to_city: 'Harbin' }],
      ['express rate Chongqing -> Tianjin for 0.5 kg', { from_city: 'Chongqing', to_city: 'Tianjin' }],
      ['Xiamen→Fuzhou 2kg', { from_city: 'Xiamen', to_city: 'Fuzhou' }],
      ["shipping cost Chengdu to Xi'an, express", { from_city: 'Chengdu', to_city: "Xi'an" }],
      ['深圳到香港寄个包裹多少钱', { from_city: '深圳', to_city: '香港' }],
    ];
    for (const [text, want] of cases) assert.deepEqual(extractParametersSync(text, fee), want, text);
    const weather = { properties: { city: { type: 'string', description: 'City name' } } };
    assert.deepEqual(extractParametersSync('Is it windy in Dalian?', weather), { city: 'Dalian' });
    assert.deepEqual(extractParametersSync('Qingdao weather tomorrow', weather), { city: 'Qingdao' });
    assert.deepEqual(extractParametersSync('合肥明天冷不冷', weather), { city: '合肥' });
    assert.deepEqual(extractParametersSync('广西有大风吗', weather), {}, 'a province is not a city');
  });

  it('addresses - only the parts written, municipalities as province and city', () => {
    const address = {
      type: 'object',
      properties: {
        province: { type: 'string', description: '省' },
        city: { type: 'string', description: '城市' },
        district: { type: 'string', description: '区/县' },
        detail: { type: 'string', description: '详细地址', minLength: 4 },
        receiver_name: { type: 'string', description: '收件人姓名' },
        receiver_phone: phone,
      },
    };
    const schema = { properties: { order_id: order, addr: address } };
    assert.deepEqual(
      extractParametersSync('地址改成天津市南开区卫津路94号，收件人周小雨，电话13522334455，订单 77889900112', schema),
      {
        order_id: '77889900112',
        addr: {
          province: '天津市',
          city: '天津市',
          district: '南开区',
          detail: '卫津路94号',
          receiver_name: '周小雨',
          receiver_phone: '13522334455',
        },
      },
    );
    assert.deepEqual(extractParametersSync('送到苏州市姑苏区人民路1200号', schema), {
      addr: { city: '苏州市', district: '姑苏区', detail: '人民路1200号' },
    });
    assert.deepEqual(
      extractParametersSync('明天来苏州市姑苏区人民路1200号取件', schema).addr,
      { city: '苏州市', district: '姑苏区', detail: '人民路1200号' },
      'the sentence going on after the street number is not the address',
    );
    assert.deepEqual(
      extractParametersSync('pick up at Room 502, 18 Jiangnan Ave, Binjiang, Hangzhou on Friday', schema).addr,
      { city: 'Hangzhou', district: 'Binjiang', detail: 'Room 502, 18 Jiangnan Ave' },
      'smallest first, a district without its word before the city',
    );
    assert.deepEqual(extractParametersSync('to 66 Keyuan Rd, Shenzhen, Order 2024090112345', schema).addr, {
      city: 'Shenzhen',
      detail: '66 Keyuan Rd',
    });
    assert.deepEqual(extractParametersSync("ship it to 5 Main St, Hangzhou, I'll be in", schema).addr, {
      city: 'Hangzhou',
      detail: '5 Main St',
    });
    assert.deepEqual(extractParametersSync('地址改为：浙江省 杭州市 西湖区 文三路100号', schema).addr, {
      province: '浙江省',
      city: '杭州市',
      district: '西湖区',
      detail: '文三路100号',
    });
    assert.deepEqual(
      extractParametersSync('地址改成广东深圳南山科苑路66号1203室', schema).addr,
      { province: '广东', city: '深圳', district: '南山', detail: '科苑路66号1203室' },
      'a district without its 区, right after its own city',
    );
    assert.deepEqual(extractParametersSync('送到苏州市姑苏区人民路1200号院3号楼502', schema).addr, {
      city: '苏州市',
      district: '姑苏区',
      detail: '人民路1200号院3号楼502',
    });
    assert.deepEqual(extractParametersSync('send it to 12 Xinhua Road, Xuhui District, Shanghai', schema), {
      addr: { province: 'Shanghai', city: 'Shanghai', district: 'Xuhui District', detail: '12 Xinhua Road' },
    });
    assert.deepEqual(
      extractParametersSync(
        'new address: Chengdu, Sichuan, Wuhou, Unit 8, 11 Renmin South Rd, Liu Yang 18628889999',
        schema,
      ),
      {
        addr: {
          province: 'Sichuan',
          city: 'Chengdu',
          district: 'Wuhou',
          detail: 'Unit 8, 11 Renmin South Rd',
          receiver_name: 'Liu Yang',
          receiver_phone: '18628889999',
        },
      },
      'largest first, as Chinese addresses are written; the name right before the phone',
    );
    assert.deepEqual(
      extractParametersSync('ship to Shanghai, Minhang District, 200 Hongqiao Road, contact Zhou Min', schema),
      {
        addr: {
          province: 'Shanghai',
          city: 'Shanghai',
          district: 'Minhang District',
          detail: '200 Hongqiao Road',
          receiver_name: 'Zhou Min',
        },
      },
    );
    assert.deepEqual(extractParametersSync('新地址：四川省成都市武侯区人民南路四段11号 刘洋收 18628889999', schema), {
      addr: {
        province: '四川省',
        city: '成都市',
        district: '武侯区',
        detail: '人民南路四段11号',
        receiver_name: '刘洋',
        receiver_phone: '18628889999',
      },
    });
    assert.deepEqual(
      extractParametersSync(
        'to Room 502, 18 Keyuan Road, Nanshan District, Shenzhen, Guangdong, recipient Wang Fang',
        schema,
      ),
      {
        addr: {
          province: 'Guangdong',
          city: 'Shenzhen',
          district: 'Nanshan District',
          detail: 'Room 502, 18 Keyuan Road',
          receiver_name: 'Wang Fang',
        },
      },
    );
    assert.deepEqual(extractParametersSync('我收到了，地址不用改', schema), {}, '收到 is not a name followed by 收');
    assert.deepEqual(
      extractParametersSync('Ship to 88 Zhongshan Road, Gulou District, Nanjing. Recipient Li Na', schema),
      {
        addr: { city: 'Nanjing', district: 'Gulou District', detail: '88 Zhongshan Road', receiver_name: 'Li Na' },
      },
      'a cue at the start of a sentence',
    );
    assert.deepEqual(
      extractParametersSync('湖北省武汉市洪山区珞喻路1037号，备注：门卫代收', schema),
      {
        addr: { province: '湖北省', city: '武汉市', district: '洪山区', detail: '珞喻路1037号' },
      },
      'in 门卫代收 no name is followed by 收',
    );
  });

  it('names - an organisation by its legal form, a person as a clause after the term, only where the schema names them', () => {
    const invoice = {
      properties: {
        title: { type: 'string', description: '发票抬头（个人姓名或企业名称）' },
        tax_id: { type: 'string', pattern: '^[0-9A-HJ-NPQRTUWXY]{15,20}$', description: '纳税人识别号' },
      },
    };
    const cases: [string, Record<string, unknown>][] = [
      [
        '需要开企业抬头的发票：上海迅达贸易有限公司，税号91310115MA1K4B2C7D',
        { title: '上海迅达贸易有限公司', tax_id: '91310115MA1K4B2C7D' },
      ],
      ['给上海迅达贸易有限公司开张票', { title: '上海迅达贸易有限公司' }],
      ['开个专票，公司名称北京某某科技有限公司', { title: '北京某某科技有限公司' }],
      ['抬头名创优品有限公司', { title: '名创优品有限公司' }],
      [
        'Issue a VAT invoice, title Shenzhen Bright Co., Ltd., tax ID 914403001234567890',
        { title: 'Shenzhen Bright Co., Ltd.', tax_id: '914403001234567890' },
      ],
      ['个人抬头，写张三就行', { title: '张三' }],
      ['个人抬头，张三，订单 20240902123456', { title: '张三' }],
      ['抬头，写我名字就行', {}],
      ['张三要开发票', {}],
      ['e-invoice for order 20250601772209, personal, name Wang Jie', { title: 'Wang Jie' }],
      ['Invoice in the name of Li Na please', { title: 'Li Na' }],
      ['Name: Zhang Wei, personal invoice', { title: 'Zhang Wei' }],
      ['my name is on the order, Wang Jie can sign', {}],
      ['personal e-invoice, title Li Lei, send to lilei@qq.com', { title: 'Li Lei' }],
      ['invoice title: Li Lei', { title: 'Li Lei' }],
      ['个人发票，名字写王杰', { title: '王杰' }],
      ['the title is wrong', {}],
      ['Wang Jie wants an invoice', {}],
    ];
    for (const [text, want] of cases) assert.deepEqual(extractParametersSync(text, invoice), want, text);
    const note = { properties: { note: { type: 'string', description: '配送备注' } } };
    assert.deepEqual(extractParametersSync('送到上海迅达贸易有限公司前台', note), {}, 'a note is not a name');
  });

  it("free text - only when labelled with the property's own term", () => {
    const schema = {
      properties: {
        note: { type: 'string', maxLength: 50, description: '配送备注' },
        title: { type: 'string', description: '发票抬头（个人或企业名称）' },
      },
    };
    assert.deepEqual(extractParametersSync('备注放快递柜，抬头：北京星河文化传媒有限公司', schema), {
      note: '放快递柜',
      title: '北京星河文化传媒有限公司',
    });
    assert.deepEqual(extractParametersSync('抬头写我自己就行', schema), {});
    const delivery = { properties: { delivery_note: schema.properties.note } };
    const notes: [string, object][] = [
      ['改送到上海市浦东新区世纪大道100号，放前台就行', { delivery_note: '放前台' }],
      ['配送地址改到深圳市南山区科苑路15号，放丰巢柜', { delivery_note: '放丰巢柜' }],
      ['改到科苑路15号，门卫代收', { delivery_note: '门卫代收' }],
      [
        'deliver to 88 Nanjing Road and leave it in the parcel locker. Order 2024090344556677',
        {
          delivery_note: 'leave it in the parcel locker',
        },
      ],
      ['改到科苑路15号，放心我白天都在', {}],
      ["ship it to 5 Main St, I'll put it in my calendar", {}],
    ];
    for (const [text, want] of notes) assert.deepEqual(extractParametersSync(text, delivery), want, text);
    const plainNote = { properties: { note: { type: 'string', description: '备注' } } };
    assert.deepEqual(
      extractParametersSync('放前台就行', plainNote),
      {},
      'a note of another kind is not a delivery note',
    );
    const invoice = {
      properties: {
        title: schema.properties.title,
        tax_id: { type: 'string', pattern: '^[0-9A-HJ-NPQRTUWXY]{15,20}$', description: '纳税人识别号' },
      },
    };
    for (const text of [
      '抬头写 北京星河文化传媒有限公司 税号91110108MA01ABCD2E',
      '抬头北京星河文化传媒有限公司税号91110108MA01ABCD2E',
      '抬头：北京星河文化传媒有限公司91110108MA01ABCD2E',
    ]) {
      assert.deepEqual(
        extractParametersSync(text, invoice),
        { title: '北京星河文化传媒有限公司', tax_id: '91110108MA01ABCD2E' },
        text,
      );
    }
  });

  it('free text - every value validates against its property, untrusted patterns only see bounded input', () => {
    const schema = {
      properties: {
        code: { type: 'string', pattern: '^(a+)+$' },
        count: { type: 'integer', minimum: 1, maximum: 5, description: 'count' },
      },
    };
    const started = Date.now();
    assert.deepEqual(
      extractParametersSync(`${'a'.repeat(40)}b 9个`, schema),
      {},
      'a catastrophic pattern is not used; 9 is over the maximum',
    );
    assert.deepEqual(extractParametersSync(`3个 ${'x'.repeat(5000)}`, schema), { count: 3 });
    assert.deepEqual(extractParametersSync(`${'x'.repeat(5000)} 3个`, schema), {}, 'text past the bound is not read');
    assert.ok(Date.now() - started < 2000);
  });
});

describe('missing message', () => {
  const schema = {
    properties: {
      order_id: { type: 'string', description: '订单号，8-20位数字' },
      employee_id: { type: 'string', description: 'Employee ID, e.g. E102345' },
      reason: { type: 'string' },
      new_address: {
        type: 'object',
        properties: { province: { type: 'string', description: '省/直辖市' }, receiver_name: { type: 'string' } },
      },
    },
  };
  const cases: [string, string[], string][] = [
    ['改地址', ['new_address.province', 'new_address.receiver_name'], '还需要：省/直辖市；new_address.receiver_name'],
    ['change the address', ['new_address.province'], 'Still needed: new_address.province (省/直辖市)'],
    ['帮我退款', ['order_id', 'reason'], '还需要：订单号（8-20位数字）；reason'],
    ['refund please', ['order_id'], 'Still needed: order_id (订单号，8-20位数字)'],
    ['reset my password', ['employee_id'], 'Still needed: employee_id (Employee ID, e.g. E102345)'],
    ['重置密码', ['employee_id'], '还需要：employee_id（Employee ID, e.g. E102345）'],
    ['anything', [], ''],
  ];
  for (const [intent, missing, want] of cases)
    it(`missing message - ${intent}`, () => assert.equal(missingMessage(missing, schema, intent), want));
});

describe('missing required', () => {
  const schema = {
    required: ['order_id', 'new_address'],
    properties: {
      order_id: { type: 'string' },
      new_address: {
        type: 'object',
        required: ['province', 'detail'],
        properties: { province: { type: 'string' }, detail: { type: 'string' } },
      },
      contact: { type: 'object', required: ['phone'], properties: { phone: { type: 'string' } } },
    },
  };
  it('missing required - top-level names, and the fields of an object that is there but incomplete, by path', () => {
    assert.deepEqual(missingRequired(schema, {}), ['order_id', 'new_address']);
    assert.deepEqual(missingRequired(schema, { order_id: '1', new_address: { detail: '文一西路969号' } }), [
      'new_address.province',
    ]);
    assert.deepEqual(
      missingRequired(schema, { order_id: '1', new_address: { province: '浙江省', detail: 'x' }, contact: {} }),
      ['contact.phone'],
      'an optional object given is checked too',
    );
  });
});

describe('schema-driven extraction (issue 25): values the schema describes, not words someone listed', () => {
  it('enum meanings - oneOf consts with descriptions are an enum; several words of one meaning pick it, one of them or a shared word does not', () => {
    const cabin = {
      type: 'string',
      oneOf: [
        { const: 'economy', description: 'cheapest seats, coach' },
        { const: 'premium_economy', description: 'more legroom than economy' },
        { const: 'business', description: 'lie-flat seats, lounge access' },
      ],
    };
    const schema = { properties: { cabin } };
    assert.deepEqual(extractParametersSync('cheapest coach seats to Rome', schema), { cabin: 'economy' });
    assert.deepEqual(extractParametersSync('premium economy please', schema), { cabin: 'premium_economy' });
    assert.deepEqual(
      extractParametersSync('I want more legroom', schema),
      { cabin: 'premium_economy' },
      'the only word of its meaning',
    );
    assert.deepEqual(
      extractParametersSync('a lounge would be nice', schema),
      {},
      'one of two words of a meaning is not enough',
    );
    assert.deepEqual(extractParametersSync('any seats to Rome', schema), {}, 'a word two meanings share says nothing');
  });

  it('enum meanings - "value: meaning" and "value (meaning)" in the description, and enumDescriptions', () => {
    const mode = {
      type: 'string',
      enum: ['heat', 'cool', 'off'],
      description: 'heat: warm the room up; cool: run the air conditioning; off: turn the system off',
    };
    assert.equal(valueDescriptions(mode, ['heat', 'cool', 'off']).get('cool'), 'run the air conditioning');
    assert.equal(enumValueLexical("it's freezing, warm the room up", 'mode', mode), 'heat');
    assert.equal(enumValueLexical('turn on the air conditioning', 'mode', mode), 'cool');
    assert.equal(enumValueLexical('set it to 22', 'mode', mode), undefined);
    const room = {
      type: 'string',
      enum: ['single', 'double', 'suite'],
      description: 'Room type: single (one guest), double (two guests, one bed), suite (separate living room)',
    };
    assert.equal(valueDescriptions(room, ['single', 'double', 'suite']).get('double'), 'two guests, one bed');
    assert.equal(
      enumValueLexical('a room for one in berlin', 'room_type', room),
      undefined,
      'one word of "separate living room" is not a suite',
    );
    const speed = {
      type: 'string',
      enum: ['standard', 'instant'],
      enumDescriptions: ['1-3 business days, free', 'arrives within minutes, fee applies'],
    };
    assert.equal(enumValueLexical('it has to arrive within minutes', 'speed', speed), 'instant');
  });

  it('currencies - ISO codes by sign and name; a sign may touch its number', () => {
    const currency = { type: 'string', enum: ['USD', 'EUR', 'GBP'] };
    const cases: [string, string | undefined][] = [
      ['send 250 dollars', 'USD'],
      ['€1,200.50 to him', 'EUR'],
      ['pay 80 pounds', 'GBP'],
      ['$5', 'USD'],
      ['wire 3000', undefined],
    ];
    for (const [text, want] of cases) assert.equal(enumValueLexical(text, 'currency', currency), want, text);
  });

  it('counts - what the property counts, written several ways; other nouns and rough ranges are not counts', () => {
    const guests = { type: 'integer', minimum: 1, maximum: 10, description: 'Number of guests' };
    const party = { type: 'integer', minimum: 1, maximum: 20, description: 'How many people' };
    const cases: [string, string, object, number | undefined][] = [
      ['hotel for 3 guests', 'guests', guests, 3],
      ['a room for two people', 'guests', guests, 2],
      ['book me a room for one in Berlin', 'guests', guests, 1],
      ['for 3 nights in Rome', 'guests', guests, undefined],
      ['we are a party of six', 'party_size', party, 6],
      ['four of us', 'party_size', party, 4],
      ['订两位，靠窗', 'party_size', party, 2],
      ['三个人吃饭', 'party_size', party, 3],
      ['table for 4 on Friday', 'party_size', party, 4],
    ];
    for (const [text, name, schema, want] of cases) assert.equal(quantityFor(text, name, schema), want, text);
  });

  it('quantities - temperatures, units of two dimensions, a number named by the property, halves and jiao, ranges refused', () => {
    const celsius = { type: 'number', minimum: 5, maximum: 35, description: 'Target temperature in degrees Celsius' };
    const weight = { type: 'number', minimum: 0.01, maximum: 100, description: '包裹重量（公斤）' };
    const money = { type: 'number', minimum: 0.01, description: '退款金额（元）' };
    const cases: [string, string, object, number | undefined][] = [
      ['warm it up to 22 degrees', 'temperature_c', celsius, 22],
      ['19.5°C please', 'temperature_c', celsius, 19.5],
      ['72°F', 'temperature_c', celsius, 22.222222],
      ['set the temperature to 24', 'temperature_c', celsius, 24],
      ['pay 80 pounds', 'amount', money, 80],
      ['about 11 pounds', 'weight_kg', weight, 4.989516],
      ['两公斤半', 'weight_kg', weight, 2.5],
      ['一斤半', 'weight_kg', weight, 0.75],
      ['半公斤', 'weight_kg', weight, 0.5],
      ['两三公斤', 'weight_kg', weight, undefined],
      ['退五十块五', 'amount', money, 50.5],
      ['三块五毛', 'amount', money, 3.5],
      ['59 dollars and 90 cents', 'amount', money, 59.9],
      ['退100块5天内到账', 'amount', money, 100],
      ['wire 3000 to him', 'amount', money, 3000],
    ];
    for (const [text, name, schema, want] of cases) assert.equal(quantityFor(text, name, schema), want, text);
  });

  it('identifiers - a from/to pair by the words around each code; digit groups as one number', () => {
    const code = (d: string) => ({ type: 'string', pattern: '^[A-Z]{3}$', description: d });
    const flights = {
      properties: {
        origin: code('IATA code of the departure airport'),
        destination: code('IATA code of the arrival airport'),
      },
    };
    assert.deepEqual(extractParametersSync('flights to SIN from HKG', flights), { origin: 'HKG', destination: 'SIN' });
    assert.deepEqual(extractParametersSync('CDG -> FCO tomorrow', flights), { origin: 'CDG', destination: 'FCO' });
    const phone = { type: 'string', pattern: '^1[3-9]\\d{9}$', description: '手机号' };
    const order = { type: 'string', pattern: '^\\d{8,20}$', description: '订单号，8-20位数字' };
    const schema = { properties: { phone, order_id: order } };
    const cases: [string, object][] = [
      ['手机是 139 0571 2288', { phone: '13905712288' }],
      ['电话 186-0211-3470', { phone: '18602113470' }],
      ['call +86 138 0013 8000', { phone: '13800138000' }],
      ['订单号 2024 0901 0077', { order_id: '202409010077' }],
      ['订单 2024-0901-12345 退款', { order_id: '2024090112345' }],
      ['订单号：２０２４０９０１１２３４５', { order_id: '2024090112345' }],
      ['phone (139) 0571-2288', {}],
      ['2024-09-06 那天', {}],
    ];
    for (const [text, want] of cases) assert.deepEqual(extractParametersSync(text, schema), want, text);
  });

  it('year-months - a pattern that takes "2024-06" and not a whole date gets a month named with its year or from this one', () => {
    const payroll = { properties: { pay_period: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$' } } };
    const cases: [string, object][] = [
      ['2024年7月的工资条', { pay_period: '2024-07' }],
      ['my June 2024 payslip', { pay_period: '2024-06' }],
      ['pay for 2024/07', { pay_period: '2024-07' }],
      ['2024年7月5日发的工资', {}],
      ['last month', { pay_period: '2025-02' }],
      ['E12345 上个月工资怎么少了', { pay_period: '2025-02' }],
      ['本月的工资什么时候发', { pay_period: '2025-03' }],
      ['the month before last was short', { pay_period: '2025-01' }],
      ['this is a monthly question', {}],
    ];
    for (const [text, want] of cases) assert.deepEqual(extractParametersSync(text, payroll, { now: NOW }), want, text);
  });

  it('year-months - a month named alone is the latest one up to this month; a day of it, a span or the verb "may" is none', () => {
    const payroll = { properties: { pay_period: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$' } } };
    const cases: [string, object][] = [
      ['工号E889900，2月份的工资怎么少了', { pay_period: '2025-02' }],
      ['三月的工资条看不懂', { pay_period: '2025-03' }],
      ['十一月工资少发了', { pay_period: '2024-11' }],
      ['my February pay is short by 300', { pay_period: '2025-02' }],
      ['why was my Dec. payslip lower', { pay_period: '2024-12' }],
      ['my May salary', { pay_period: '2024-05' }],
      ['我3个月没涨工资了', {}],
      ['2月5号发的工资', {}],
      ['the pay on Feb 5', {}],
      ['May I ask why my pay is low', {}],
      ['marching band pay', {}],
    ];
    for (const [text, want] of cases) assert.deepEqual(extractParametersSync(text, payroll, { now: NOW }), want, text);
  });

  it('by meaning - the intent is embedded once for all open enums; a failing model leaves what the words gave', async () => {
    let queries = 0;
    const model = {
      embedQuery: async () => ((queries += 1), Float32Array.from([1, 0])),
      embedDocuments: async (texts: string[]) =>
        texts.map((t) => Float32Array.from(t.startsWith('a') ? [1, 0] : [0, 1])),
    };
    const schema = {
      properties: {
        one: { type: 'string', enum: ['alpha', 'beta'] },
        two: { type: 'string', enum: ['apple', 'berry'] },
        id: { type: 'string', pattern: '^X\\d{3}$' },
      },
    };
    assert.deepEqual(await extractParameters('something X123', schema, { embed: model }), {
      id: 'X123',
      one: 'alpha',
      two: 'apple',
    });
    assert.equal(queries, 1);
    const broken = { embedQuery: async () => Promise.reject(new Error('model down')), embedDocuments: async () => [] };
    assert.deepEqual(await extractParameters('something X123', schema, { embed: broken }), { id: 'X123' });
  });
});
