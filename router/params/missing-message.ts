/**
 * What `input_required` tells the caller is missing, in the caller's language (Chinese when the intent has CJK
 * characters, English otherwise), naming each property by its title or description:
 * "还需要：订单号（8-20位数字）" / "Still needed: order_id (the order number, 8–20 digits)".
 */
import { CJK, type ObjectSchema, type PropertySchema } from './schema';

function describe(name: string, schema: PropertySchema | undefined, chinese: boolean): string {
  const about = (schema?.title ?? schema?.description ?? '').trim();
  if (!about) return name;
  if (chinese) {
    if (CJK.test(about)) {
      // "订单号，8-20位数字" → "订单号（8-20位数字）": the head names it, the rest explains.
      const [head, ...rest] = about.split(/[，,]/);
      return rest.length > 0 ? `${head!.trim()}（${rest.join('，').trim()}）` : head!.trim();
    }
    return `${name}（${about}）`;
  }
  return `${name} (${about})`;
}

export function missingMessage(missing: string[], schema: unknown, intent: string): string {
  if (missing.length === 0) return '';
  const properties = (schema as ObjectSchema | undefined)?.properties ?? {};
  const chinese = CJK.test(intent);
  const items = missing.map((path) => {
    // "new_address.province" is named by the field's own title or description ("省/直辖市").
    const [name, field] = path.split('.') as [string, string | undefined];
    return field === undefined
      ? describe(name, properties[name], chinese)
      : describe(path, properties[name]?.properties?.[field], chinese);
  });
  return chinese ? `还需要：${items.join('；')}` : `Still needed: ${items.join('; ')}`;
}
