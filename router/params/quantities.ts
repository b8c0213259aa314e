/**
 * A numeric property's value from the text: a number with a unit of the dimension the property measures,
 * converted to the property's unit ("6斤" → 3 for weight_kg), or a bare number right after a word that names it
 * ("退199", "amount 59.9"). Numbers without either are never taken: "等了五天" says nothing about an amount.
 */
import { numbersIn } from './numbers';
import { headTerm, numberFits, type PropertySchema } from './schema';
import { CURRENCY_PREFIX, unitAfter, wantedUnit } from './units';

const MONEY_CUES = ['退款', '退还', '退', '金额', '价值', '价格', '付了', '花了', '实付', '差价', 'refund', 'amount', 'worth', 'value', 'price', 'cost', 'paid', 'pay'];

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function cuedBefore(text: string, start: number, cues: string[]): boolean {
  const before = text.slice(Math.max(0, start - 8), start).toLowerCase().replace(/[\s:：是为of]+$/u, '');
  return cues.some((cue) => before.endsWith(cue));
}

export function quantityFor(text: string, name: string, schema: PropertySchema): number | undefined {
  const wanted = wantedUnit(name, schema);
  if (!wanted) return undefined;
  const head = headTerm(schema);
  const cues = [...(wanted.dimension === 'money' ? MONEY_CUES : []), ...(head && head.length <= 8 ? [head.toLowerCase()] : [])];
  const candidates: { value: number; cued: boolean }[] = [];
  for (const n of numbersIn(text)) {
    const unit = unitAfter(text, n.end);
    const cued = cuedBefore(text, n.start, cues);
    if (unit) {
      if (unit.dimension !== wanted.dimension) continue;
      candidates.push({ value: round((n.value * unit.factor) / wanted.factor), cued });
    } else if (wanted.dimension === 'money' && CURRENCY_PREFIX.test(text.slice(Math.max(0, n.start - 3), n.start))) {
      candidates.push({ value: n.value, cued: true });
    } else if (cued && wanted.dimension === 'money') {
      candidates.push({ value: n.value, cued });
    }
  }
  const fitting = candidates.filter((c) => numberFits(c.value, schema));
  return (fitting.find((c) => c.cued) ?? fitting[0])?.value;
}
