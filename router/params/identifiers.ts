/**
 * Identifiers (order numbers, phones, refund ids, employee ids, tracking numbers…) assigned to the properties that
 * take them. Each Latin/digit token of the text is offered to every slot whose `pattern` accepts it whole; a slot
 * whose own words stand right before the token ("订单2024…", "call 5566…") wins it, then the slot with the more
 * specific pattern (a phone's "1[3-9]\d{9}" beats an order's "\d{8,20}"). Slots without a pattern but with an
 * identifier's name ("售后单号", "call_id") take a token only with such a cue, or when the token starts with the
 * initials of their name ("AS…" for after_sales_id). A word of lower-case letters is taken only with a cue. Each
 * token is used once.
 */
import { propertyRole, roleOf } from './roles';
import { compilePattern, headTerm, MAX_PATTERN_INPUT, nameWords, type PropertySchema, typeOf } from './schema';

export interface Slot {
  /** Property path: ["order_id"] or ["new_address", "receiver_phone"]. */
  path: string[];
  schema: PropertySchema;
  /** An array of such values (order_ids) rather than one. */
  many?: boolean;
}

export interface Token {
  /** The value: the characters as written, or the digits alone for digit groups. */
  text: string;
  start: number;
  end: number;
}

const TOKEN = /[A-Za-z0-9][A-Za-z0-9_-]*[A-Za-z0-9]|[A-Za-z0-9]/g;

/**
 * Digits written in groups ("139 0571 2288", "186-0211-3470", "+86 138 0013 8000", "2024-0901-12345"), read as one
 * number.
 */
const GROUPED = /(?<![\w+])(?:\+?86[\s-]?)?\d{2,5}(?:[ \u3000-]\d{2,5}){1,4}(?![\w-])/g;
/** A written date ("2024-09-06", "2024 09 06") is not a grouped number. */
const DATE_LIKE = /^(?:\+?86[\s-]?)?(?:19|20)\d{2}[ \u3000-]\d{1,2}[ \u3000-]\d{1,2}$/;

/**
 * Latin/digit runs, ignoring e-mails and URLs (they are their own kind of value), and digit groups joined as one
 * token (its text the digits alone, its span the whole written form).
 */
export function tokensIn(text: string): Token[] {
  const masked = text.replace(/https?:\/\/\S+|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, (m) =>
    ' '.repeat(m.length),
  );
  const tokens = [...masked.matchAll(TOKEN)].map((m) => ({ text: m[0], start: m.index!, end: m.index! + m[0].length }));
  for (const m of masked.matchAll(GROUPED)) {
    if (DATE_LIKE.test(m[0])) continue;
    const digits = m[0].replace(/^\+?86[\s-]?(?=\d{3}[\s-]?\d{4}[\s-]?\d{4}$)/, '').replace(/\D/g, '');
    if (digits.length >= 7) tokens.push({ text: digits, start: m.index!, end: m.index! + m[0].length });
  }
  return tokens;
}

/** Words that name common identifiers, beyond what a property's own name and description say. */
const CUES: Record<string, string[]> = {
  order: ['订单号', '订单', '单号', '定单', 'order'],
  phone: ['手机号', '手机', '电话', '号码', '联系方式', 'phone', 'mobile', 'tel', 'cell'],
  tracking: [
    '快递单号',
    '运单号',
    '快递',
    '物流单号',
    '顺丰',
    '中通',
    '圆通',
    '申通',
    '韵达',
    '极兔',
    '京东',
    '邮政',
    'ems',
    'sf',
    'jd',
    'tracking',
    'waybill',
    'parcel',
    'package',
  ],
  refund: ['退款单号', '退款单', '退款', 'refund'],
  invoice: ['发票号', '发票', 'invoice'],
  ticket: ['工单号', '工单', 'ticket'],
  employee: ['工号', '员工号', '坐席', 'employee', 'staff', 'agent', 'rep', 'representative', 'operator'],
  call: ['通话', '录音', 'call'],
  sku: ['sku', '商品编号'],
};

/** Words that, written right before a token, say it belongs to this slot. */
export function cuesFor(slot: Slot): string[] {
  const name = slot.path.at(-1)!;
  const cues = new Set<string>();
  const head = headTerm(slot.schema);
  if (head && head.length <= 12) {
    cues.add(head.toLowerCase());
    if (/[号码]$/.test(head) && head.length > 2) cues.add(head.slice(0, -1).toLowerCase());
  }
  const words = nameWords(name).filter((w) => !['id', 'no', 'num', 'number', 'code', 'ids'].includes(w));
  if (words.length > 0) cues.add(words.join(' '));
  for (const w of words) for (const c of CUES[w.replace(/s$/, '')] ?? []) cues.add(c);
  return [...cues];
}

/** The longest cue that ends right before `start` (spaces, colons and "是/为/:#" allowed between). */
function cueBefore(text: string, start: number, cues: string[]): number {
  const before = text
    .slice(Math.max(0, start - 16), start)
    .toLowerCase()
    .replace(/[\s:：#=是为号码]*$/u, '')
    .replace(/\s*(?:id|no\.?|number|num)$/, '');
  let best = 0;
  for (const cue of cues) if (cue.length > best && endsWithCue(before, cue)) best = cue.length;
  // "订单号" is cut to "订单" by the trim above; match the cue without its last character too.
  for (const cue of cues)
    if (/[号码]$/.test(cue) && cue.length - 1 > best && before.endsWith(cue.slice(0, -1))) best = cue.length - 1;
  return best;
}

/** `text` ends with `cue`, and a Latin cue as a whole word ("items" does not end with the cue "ems"). */
function endsWithCue(text: string, cue: string): boolean {
  if (!text.endsWith(cue)) return false;
  return !/^[a-z]/.test(cue) || !/[a-z]$/.test(text.slice(0, -cue.length));
}

/** Literal characters and narrow classes in a pattern: more of them, fewer strings it accepts. */
export function specificity(pattern: string): number {
  const body = pattern.replace(/\\[dDwWsS]/g, '').replace(/\{[^}]*\}/g, '');
  const classes = [...body.matchAll(/\[([^\]]*)\]/g)].filter((m) => !/0-9|a-z|A-Z/.test(m[1]!)).length;
  const literals = (
    body
      .replace(/\[[^\]]*\]/g, '')
      .replace(/\\./g, '')
      .match(/[A-Za-z0-9]/g) ?? []
  ).length;
  return literals + classes;
}

function itemSchema(slot: Slot): PropertySchema {
  return slot.many ? (slot.schema.items ?? {}) : slot.schema;
}

function accepts(slot: Slot, token: string): boolean {
  const pattern = itemSchema(slot).pattern;
  if (!pattern) return false;
  const re = compilePattern(pattern);
  return !!re && token.length <= MAX_PATTERN_INPUT && re.test(token);
}

/**
 * The forms a code may be meant in: as written, in capitals when letters and digits were typed in lower case
 * ("e12345" for "^E\d{5,8}$", "rf2025041200783"), and with a letter typed for a digit read as that digit.
 */
export function codeForms(token: string): string[] {
  const forms = /[a-z]/.test(token) && /\d/.test(token) ? [token, token.toUpperCase()] : [token];
  // A number typed with a letter for a digit ("2025O311482910"): O for 0, l or I for 1, once or twice in a long run.
  const misread = token.match(/[OoIl]/g) ?? [];
  if (misread.length > 0 && misread.length <= 2 && /^[\dOoIl]+$/.test(token) && /\d{6}/.test(token))
    forms.push(token.replace(/[Oo]/g, '0').replace(/[Il]/g, '1'));
  return forms;
}

/** The token in the first of its forms the slot's pattern takes; undefined when it takes none. */
function acceptedForm(slot: Slot, token: string): string | undefined {
  return codeForms(token).find((form) => accepts(slot, form));
}

/**
 * An identifier-like property without a pattern: its name or description says it is an id or a number. An integer
 * one too ({"order_id": {"type": "integer"}}): it takes a token of digits only, as a number.
 */
export function isLooseIdentifier(name: string, schema: PropertySchema): boolean {
  const type = typeOf(schema);
  if ((type !== 'string' && type !== 'integer') || schema.pattern || schema.format || schema.enum) return false;
  const words = nameWords(name);
  return (
    ['id', 'no', 'number', 'code'].includes(words.at(-1)!) || /(单号|编号|工号|id|号码)$/i.test(headTerm(schema) ?? '')
  );
}

/** A token a loose identifier may take: digits in it, three characters or more; for an integer, digits only. */
function looseToken(slot: Slot, token: string): boolean {
  if (typeOf(slot.schema) === 'integer') return /^\d{3,15}$/.test(token);
  return /\d/.test(token) && token.length >= 3;
}

/** Initials or a leading word of the name: "AS…" for after_sales_id, "INV…" for invoice_id, "CALL…" for call_id. */
function prefixedByName(token: string, name: string): boolean {
  const letters = token.match(/^[A-Za-z]+/)?.[0]?.toLowerCase();
  if (!letters || !/\d/.test(token)) return false;
  const words = nameWords(name).filter((w) => w !== 'id' && w !== 'no');
  if (words.length > 1 && letters === words.map((w) => w[0]).join('')) return true;
  return letters.length >= 3 && words.some((w) => w.startsWith(letters));
}

/**
 * Letters alone with a lower-case one among them ("shipping", "Neighbours") is a word of the sentence, not an
 * identifier, though a pattern like "^[A-Za-z0-9]{8,30}$" accepts it: taken only when a cue names it. Codes of
 * capitals ("PEK", "VIP") stay identifiers.
 */
function isWord(token: string): boolean {
  return /^[A-Za-z]+$/.test(token) && /[a-z]/.test(token);
}

/** Assigns tokens to slots; returns each slot's value(s) by its path joined with ".". */
export function assignIdentifiers(text: string, slots: Slot[]): Map<string, string | string[]> {
  const tokens = tokensIn(text);
  const out = new Map<string, string | string[]>();
  const used: Token[] = [];
  type Offer = { slot: Slot; token: number; value: string; score: number };
  const offers: Offer[] = [];
  // A from/to pair (origin and destination codes) takes each token by the role the words around it give.
  const roles = slots.map((s) => propertyRole(s.path.at(-1)!, s.schema));
  const paired = roles.includes('from') && roles.includes('to');
  slots.forEach((slot, order) => {
    const name = slot.path.at(-1)!;
    const cues = cuesFor(slot);
    const loose = !slot.many && isLooseIdentifier(name, slot.schema);
    tokens.forEach((t, i) => {
      const cue = cueBefore(text, t.start, cues);
      // A number read from digit groups is only taken with a cue or by a pattern with literal parts (a phone's "1[3-9]").
      const grouped = t.text.length !== t.end - t.start;
      const form = acceptedForm(slot, t.text);
      if (
        form !== undefined &&
        (!grouped || cue > 0 || specificity(itemSchema(slot).pattern!) > 0) &&
        (cue > 0 || !isWord(t.text))
      ) {
        const role = paired && roles[order] !== 'any' ? roleOf(text, t.start, t.end) : 'any';
        const byRole = role === 'any' ? 0 : role === roles[order] ? 100 : -100;
        offers.push({
          slot,
          token: i,
          value: form,
          score: (cue > 0 ? 100 + cue : 0) + byRole + specificity(itemSchema(slot).pattern!) * 10 - order * 0.01,
        });
      } else if (loose && looseToken(slot, t.text) && (cue > 0 || prefixedByName(t.text, name))) {
        offers.push({ slot, token: i, value: t.text, score: cue > 0 ? 50 + cue : 40 });
      }
    });
  });
  offers.sort((a, b) => b.score - a.score || a.token - b.token);
  for (const offer of offers) {
    const key = offer.slot.path.join('.');
    const token = tokens[offer.token]!;
    if (used.some((u) => token.start < u.end && u.start < token.end)) continue;
    const { value } = offer;
    if (offer.slot.many) {
      const list = (out.get(key) as string[] | undefined) ?? [];
      const max = offer.slot.schema.maxItems ?? Infinity;
      if (list.length >= max || list.includes(value)) continue;
      out.set(key, [...list, value]);
    } else {
      if (out.has(key)) continue;
      out.set(key, value);
    }
    used.push(token);
  }
  // Arrays keep text order and must reach their minimum size.
  for (const slot of slots.filter((s) => s.many)) {
    const key = slot.path.join('.');
    const list = out.get(key) as string[] | undefined;
    if (!list) continue;
    if (list.length < (slot.schema.minItems ?? 1)) out.delete(key);
    else
      out.set(
        key,
        list.sort((a, b) => text.indexOf(a) - text.indexOf(b)),
      );
  }
  return out;
}
