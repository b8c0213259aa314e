/**
 * The deterministic splitter (docs/chains.md, "Planning a chain"): one zh/en request → the sub-requests it chains,
 * each with how it follows the one before (after it, or beside it) and the condition it runs under. Pure: no
 * catalogue, no model. Clause boundaries are punctuation and sequencers (然后 / 再 / 接着 / 如果…就 / 否则; and then /
 * after that / if … then / otherwise); a piece that asks for nothing (no verb at its head: an address's part, a
 * title, "商品有破损") belongs to the clause before it.
 */

export type Link = 'then' | 'parallel';

export interface SplitCondition {
  /** What must hold, as the request says it ("还没发货", "it is raining"); empty when it only points back ("if so"). */
  text: string;
  /** An "otherwise" branch: the condition of the clause before it, not holding. */
  otherwise: boolean;
}

export interface SubRequest {
  text: string;
  /** How it follows the sub-request before it: after it ends, or beside it (同时 / at the same time). */
  link: Link;
  condition?: SplitCondition;
}

type Marker = 'then' | 'parallel' | 'if' | 'else';

interface Piece {
  marker?: Marker;
  text: string;
}

/** Longest first, so "and then" is one marker rather than "and" and "then". */
const EN_MARKERS: [RegExp, Marker][] = [
  [/^(?:and\s+)?at the same time\b/i, 'parallel'],
  [/^(?:and\s+)?meanwhile\b/i, 'parallel'],
  [/^(?:and\s+)?(?:then|after that|afterwards|finally)\b/i, 'then'],
  [/^(?:and\s+)?(?:otherwise|else|if not$)/i, 'else'],
  [/^(?:and\s+)?(?:if|in case)\b/i, 'if'],
];
const ZH_MARKERS: [RegExp, Marker][] = [
  [/^(?:同时|与此同时|顺便)/, 'parallel'],
  [/^(?:然后|接着|之后|随后|最后|再|并且|而且|完了|另外)/, 'then'],
  [/^(?:否则|不然|要不然)/, 'else'],
  [/^(?:如果|要是|假如|若是|万一|若)/, 'if'],
  // "开好后…", "开完以后…": a short verb phrase ended with 后.
  [/^[\u4e00-\u9fff]{0,3}?(?:好|完|了|到|成)(?:以后|之后|后)/, 'then'],
];

/** Where a sequencer starts inside a piece: before it, the piece ends. */
const EN_INLINE =
  /(?<!\band)\s(?=(?:and\s+)?(?:then|after that|afterwards|finally|at the same time|meanwhile|otherwise|if|in case)\b)|(?<!\band)\s(?=and\s+(?:VERBS)\b)/i;
const ZH_INLINE = /(?=然后|接着|随后|最后|同时|否则|不然|如果|要是|假如|并且)/;

/** English imperative heads: a clause that starts with one asks for something. */
const EN_VERBS = [
  'check',
  'track',
  'send',
  'call',
  'request',
  'issue',
  'cancel',
  'schedule',
  'book',
  'look',
  'show',
  'get',
  'file',
  'report',
  'reset',
  'submit',
  'explain',
  'start',
  'open',
  'put',
  'estimate',
  'triage',
  'audit',
  'record',
  'change',
  'text',
  'email',
  'resend',
  'judge',
  'inspect',
  'find',
  'tell',
  'refund',
  'return',
  'give',
  'let',
  'notify',
  'remind',
  'update',
  'merge',
  'add',
  'register',
  'please',
  'can',
  'could',
  'would',
  'help',
  'lodge',
  'arrange',
  'query',
  'see',
  'confirm',
  'verify',
  'apply',
  'stop',
  'block',
  'ask',
  'phone',
  'ring',
  'message',
  'forward',
  'create',
  'make',
  'pay',
  'move',
  'set',
  'raise',
  'what',
  "what's",
  'how',
  'where',
  'when',
  'is',
  'are',
  'does',
  'do',
  'will',
  'why',
  'which',
  'who',
  'i',
  "i'd",
  'we',
];
const EN_VERB_HEAD = new RegExp(`^(?:${EN_VERBS.map(escape).join('|')})\\b`, 'i');
const EN_INLINE_SPLIT = new RegExp(
  EN_INLINE.source.replace(
    'VERBS',
    EN_VERBS.filter(
      (v) =>
        !/^(?:i|i'd|we|is|are|do|does|will|can|could|would|what|what's|how|where|when|why|which|who|please)$/.test(v),
    )
      .map(escape)
      .join('|'),
  ),
  'i',
);

/** Chinese: a clause that asks for something starts (after 帮我 / 请 / 先 …) with a verb or with 给 / 把 / 对 / 为. */
const ZH_POLITE = /^(?:请|麻烦|帮忙|帮我|帮|先|再|就|我要|我想|我想要|顺便|一下|你|给我)*/;
const ZH_VERB_HEAD =
  /^(?:查|问|看|取消|开|申请|预约|登记|发|打|通知|改|修改|退款|退货|投诉|重置|提交|估算|计算|撤销|撤回|解释|说明|判定|判断|合并|告诉|加入|回访|初审|分派|评分|质检|追踪|跟踪|提醒|拦截|寄|给|把|对|为|替|确认|核实|安排|登|报|办|催|拉黑|停止|设置|重新|搞|弄)/;

function escape(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\']/g, '\\$&');
}

const isChinese = (text: string) => /[\u4e00-\u9fff]/.test(text);
const joined = (before: string, after: string) => (isChinese(before) ? `${before}，${after}` : `${before}, ${after}`);

/** Sentences and comma pieces: full stops, question and exclamation marks, semicolons, colons and commas. */
function rawPieces(text: string): string[] {
  return text
    .replace(/\.(?=\s|$)/g, '。')
    .split(/[，,；;。！!？?：:\n]+/)
    .map((p) => p.trim())
    .filter(Boolean);
}

function markerOf(text: string): Piece {
  const markers = isChinese(text.slice(0, 2)) ? ZH_MARKERS : EN_MARKERS;
  for (const [pattern, marker] of markers) {
    const found = pattern.exec(text);
    if (found) return { marker, text: text.slice(found[0].length).replace(/^[\s,，]+/, '') };
  }
  return { text: text.replace(/^and\s+/i, '') };
}

/** A piece cut again where a sequencer starts inside it, each part with its marker. */
function markedPieces(raw: string): Piece[] {
  const inline = isChinese(raw) ? ZH_INLINE : EN_INLINE_SPLIT;
  return raw
    .split(inline)
    .map((p) => p.trim())
    .filter(Boolean)
    .map(markerOf);
}

export function asksForSomething(text: string): boolean {
  if (isChinese(text)) return ZH_VERB_HEAD.test(text.replace(ZH_POLITE, ''));
  return EN_VERB_HEAD.test(text.replace(/^(?:and|but|also|please)\s+/i, ''));
}

/** A condition piece's own action, when it says both: "还没发货就帮我取消", "已发货的话查物流", "if X then Y" (split already). */
function conditionAndAction(text: string): { condition: string; action?: string } {
  const zh = /^(.*?)(?:的话)?(?:就|那就|那么|便)(.+)$/.exec(text) ?? /^(.*?)的话[，,]?(.+)$/.exec(text);
  if (zh && isChinese(text)) return { condition: zh[1]!.trim(), action: zh[2]!.trim() };
  return { condition: text.replace(/\bthen$/i, '').trim() };
}

/** The sub-requests of a request, in the order it names them. */
export function splitRequest(request: string): SubRequest[] {
  const pieces = rawPieces(request).flatMap(markedPieces);
  const out: SubRequest[] = [];
  let pendingMarker: Marker | undefined;
  let pendingCondition: SplitCondition | undefined;
  let lastCondition: string | undefined;
  /** A first clause that asks for nothing waits for the next marker-less piece. */
  let lead: string | undefined;

  const push = (text: string, marker: Marker | undefined, condition?: SplitCondition) => {
    const full = lead ? joined(lead, text) : text;
    lead = undefined;
    out.push({ text: full, link: marker === 'parallel' ? 'parallel' : 'then', ...(condition ? { condition } : {}) });
  };

  for (const piece of pieces) {
    const marker = piece.marker ?? pendingMarker;
    if (marker && lead) {
      // A first clause that asks for nothing by its head ("订单…申请退款") is still a request when a sequencer follows.
      out.push({ text: lead, link: 'then' });
      lead = undefined;
    }
    if (!piece.text && piece.marker === 'else') {
      // "if not," / "否则，": the next piece runs when the condition before does not hold.
      pendingCondition = { text: lastCondition ?? '', otherwise: true };
      continue;
    }
    if (!piece.text) {
      // "After that," alone: its marker is the next piece's.
      pendingMarker = piece.marker ?? pendingMarker;
      continue;
    }
    pendingMarker = undefined;
    if (piece.marker === 'if') {
      const { condition, action } = conditionAndAction(piece.text);
      lastCondition = condition;
      if (action) push(action, 'then', { text: condition, otherwise: false });
      else pendingCondition = { text: condition, otherwise: false };
      continue;
    }
    if (piece.marker === 'else') {
      const action = piece.text.replace(/^(?:就|那就|的话)/, '').trim();
      const condition = { text: lastCondition ?? '', otherwise: true };
      if (action) push(action, 'then', condition);
      else pendingCondition = condition;
      continue;
    }
    if (!piece.marker && !asksForSomething(piece.text) && !pendingCondition) {
      // Part of the clause before it (an address, a title, a reason), or of the next when it comes first.
      const previous = out[out.length - 1];
      if (previous) previous.text = joined(previous.text, piece.text);
      else lead = lead ? joined(lead, piece.text) : piece.text;
      continue;
    }
    if (pendingCondition) {
      push(piece.text, 'then', pendingCondition);
      pendingCondition = undefined;
      continue;
    }
    push(piece.text, marker);
  }
  if (lead) out.push({ text: lead, link: 'then' });
  return out;
}
