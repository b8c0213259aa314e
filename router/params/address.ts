/**
 * Address objects ({province, city, district, detail, receiver_name, receiver_phone}) from Chinese addresses
 * ("浙江省杭州市余杭区文一西路969号，收件人王芳 137…") and simple English ones ("88 Nanjing Road, Huangpu
 * District, Shanghai"). Only what is written is filled: a city written without its province gets no province,
 * except that 北京/上海/天津/重庆 are both.
 */
import { districtShortAt, placesIn } from './gazetteer';
import { NOT_PLACES } from './places';
import { nameWords, type PropertySchema, typeOf } from './schema';

export type AddressPart = 'province' | 'city' | 'district' | 'detail' | 'receiver_name' | 'receiver_phone';

/** Which part of an address each sub-property is, when the object looks like an address at all. */
export function addressParts(schema: PropertySchema): Map<string, AddressPart> | undefined {
  if (typeOf(schema) !== 'object' || !schema.properties) return undefined;
  const parts = new Map<string, AddressPart>();
  for (const [name, p] of Object.entries(schema.properties)) {
    const words = nameWords(name);
    const d = p.description ?? '';
    if (words.includes('province') || words.includes('state') || /^省/.test(d)) parts.set(name, 'province');
    else if (words.includes('city') || /^城市/.test(d)) parts.set(name, 'city');
    else if (words.includes('district') || words.includes('county') || /^区/.test(d)) parts.set(name, 'district');
    else if (words.includes('detail') || words.includes('street') || words.includes('line1') || /详细地址|街道/.test(d))
      parts.set(name, 'detail');
    else if (words.includes('phone') || words.includes('mobile') || words.includes('tel'))
      parts.set(name, 'receiver_phone');
    else if (words.includes('name') || /姓名|联系人|收件人/.test(d)) parts.set(name, 'receiver_name');
  }
  const values = new Set(parts.values());
  return values.has('detail') || (values.has('city') && values.has('district')) ? parts : undefined;
}

const SURNAMES = new Set([
  ...'王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝',
]);
/** Characters that end a name: what follows a name in an address line, not part of it. */
const NOT_IN_NAME = /[手电号收的了和先女男在电话，,。\s\d是为改换写]/;

/** A Chinese personal name starting at `at` (a common surname and one or two more characters). */
export function nameAt(text: string, at: number): string | undefined {
  const first = text.charAt(at);
  if (!SURNAMES.has(first)) return undefined;
  let name = first;
  for (let i = at + 1; i < at + 3 && i < text.length; i++) {
    const c = text.charAt(i);
    if (!/[\u4e00-\u9fff]/.test(c) || NOT_IN_NAME.test(c)) break;
    name += c;
  }
  return name.length >= 2 ? name : undefined;
}

const CJK_CHAR = /[\u4e00-\u9fff]/;

const NAME_CUE = /(?:收件人|收货人|联系人|收件|联系)/g;

/** The receiver's name: after 收件人/联系人 (allowing "…改成"), else right before a phone number. */
export function receiverName(text: string, phone?: string): string | undefined {
  for (const cue of text.matchAll(NAME_CUE)) {
    const rest = text.slice(cue.index! + cue[0].length, cue.index! + cue[0].length + 16);
    const direct = rest.match(/^\s*(?:是|为|:|：|叫|写)?\s*/)!;
    const name = nameAt(rest, direct[0].length);
    if (name) return name;
    const changed = rest.match(/(?:改成|改为|换成|换为|写成)\s*/);
    if (changed) {
      const n = nameAt(rest, changed.index! + changed[0].length);
      if (n) return n;
    }
  }
  // "刘洋收": a name followed by 收 (for the attention of), not 收件/收货/收到.
  for (const m of text.matchAll(/收(?![件货到下])/g)) {
    for (const len of [3, 2]) {
      const start = m.index! - len;
      // The name starts a phrase ("，刘洋收", "交给刘洋收", "1201室刘洋收"): in "门卫代收" 卫代 is inside a word.
      const opensPhrase =
        start === 0 || !CJK_CHAR.test(text.charAt(start - 1)) || /[给交由号室栋层座]/.test(text.charAt(start - 1));
      if (
        start >= 0 &&
        opensPhrase &&
        nameAt(text, start) === text.slice(start, m.index!) &&
        !/[市区县路号]/.test(text.slice(start, m.index!))
      )
        return text.slice(start, m.index!);
    }
  }
  // English: "recipient Wang Fang", "attn: Li Na", "contact Zhou Min", or a name right before the phone.
  const english = text.match(
    /\b(?:[Rr]ecipient|[Rr]eceiver|[Aa]ddressee|[Aa]ttn|[Aa]ttention|[Nn]ame|[Cc]ontact)\s*(?:is|:)?\s*([A-Z][a-z]+(?:\s[A-Z][a-z]+){1,2})\b/,
  );
  if (english) return english[1];
  const at = phone ? text.indexOf(phone) : -1;
  if (at >= 0) {
    const latin = text.slice(0, at).match(/(?:^|[,;]\s*)([A-Z][a-z]+\s[A-Z][a-z]+)[\s,:]*$/);
    if (latin) return latin[1];
    const before = text.slice(Math.max(0, at - 5), at).replace(/\s+$/, '');
    for (const len of [3, 2]) {
      const start = before.length - len;
      if (start >= 0 && nameAt(before, start) === before.slice(start) && !/[市区县路号]/.test(before.slice(start)))
        return before.slice(start);
    }
  }
  return undefined;
}

const DETAIL_END = /[，,；;。！!？?\s]|收件人|收货人|联系人|电话|手机|备注|订单|单号|$/;
/**
 * Words after a street number that are still the address ("88号院", "1号楼", "5号大厦"); any other Chinese words
 * after the number are the sentence going on ("张江路88号取件": a verb, not part of the address).
 */
const AFTER_NUMBER = /^(?:院|楼|栋|幢|室|座|单元|层|门|弄|巷|大厦|小区|公寓|商场|广场|中心|园|苑|村)/;

/** The detail without the words of the sentence that run on after its street number, when nothing ends it. */
function withoutRunOn(detail: string): string {
  const m = detail.match(/^(.*\d+号)(\p{Script=Han}+)$/u);
  return m && !AFTER_NUMBER.test(m[2]!) ? m[1]! : detail;
}

/** A Chinese address: province? city? district? then the street-level detail. */
function chineseAddress(text: string): Partial<Record<AddressPart, string>> {
  const mentions = placesIn(text);
  for (let i = 0; i < mentions.length; i++) {
    const chain = [mentions[i]!];
    // Parts written together or apart ("浙江省杭州市西湖区", "浙江省 杭州市 西湖区").
    while (
      i + chain.length < mentions.length &&
      /^\s*$/.test(text.slice(chain.at(-1)!.end, mentions[i + chain.length]!.start))
    )
      chain.push(mentions[i + chain.length]!);
    const out: Partial<Record<AddressPart, string>> = {};
    for (const m of chain) {
      const levels = new Set(m.candidates.map((c) => c.level));
      if (levels.has('province') && !out.province && !out.city) {
        out.province = m.text;
        if (m.candidates.some((c) => c.municipality)) out.city = m.text;
      } else if (levels.has('city') && !out.city) out.city = m.text;
      else if (levels.has('district') && !out.district && m.text.length >= 2 && /[区县市旗]$/.test(m.text))
        out.district = m.text;
    }
    let rest = text.slice(chain.at(-1)!.end).trimStart();
    // A district written without its 区 ("深圳南山科苑路…") is read right after its own city.
    const city = chain.flatMap((m) => m.candidates).find((c) => c.level === 'city' || c.municipality);
    const short = !out.district && city ? districtShortAt(rest, city.full) : undefined;
    if (short) {
      out.district = short.text;
      rest = rest.slice(short.text.length).trimStart();
    }
    const end = rest.search(DETAIL_END);
    const detail = withoutRunOn(rest.slice(0, end < 0 ? rest.length : end).trim());
    if (detail && /\d|号|路|街|村|栋|室|弄/.test(detail)) out.detail = detail;
    if (out.detail && (out.district || out.city)) return out;
  }
  return {};
}

const MUNICIPALITIES_EN = new Set(['Beijing', 'Shanghai', 'Tianjin', 'Chongqing']);
/** Provinces and regions in pinyin, as English addresses write them after the city. */
const PROVINCES_EN = new Set([
  'Anhui',
  'Fujian',
  'Gansu',
  'Guangdong',
  'Guangxi',
  'Guizhou',
  'Hainan',
  'Hebei',
  'Heilongjiang',
  'Henan',
  'Hubei',
  'Hunan',
  'Inner Mongolia',
  'Jiangsu',
  'Jiangxi',
  'Jilin',
  'Liaoning',
  'Ningxia',
  'Qinghai',
  'Shaanxi',
  'Shandong',
  'Shanxi',
  'Sichuan',
  'Tibet',
  'Xinjiang',
  'Yunnan',
  'Zhejiang',
  'Hong Kong',
  'Macau',
  'Taiwan',
]);
/** What follows the city: ", Guangdong" or ", Guangdong Province". */
const EN_PROVINCE_AFTER = /^\s*,\s*([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)(?:\s+Province)?\b/;
/** The street-level part: "Room 1203, 66 Keyuan Rd", "18 Jiangnan Ave". */
const EN_STREET = String.raw`(?:(?:Room|Rm\.?|Flat|Unit|Apt\.?|Apartment|Suite)\s*[\w-]+,?\s*)?\d+[A-Za-z]?\s+[A-Z][\w\s.'-]*?(?:Road|Street|Avenue|Lane|Boulevard|Rd|St|Ave|Blvd|Way|Drive)`;
/** Smallest first: "88 Nanjing Road, Huangpu District, Shanghai". */
const EN_ADDRESS = new RegExp(
  String.raw`(${EN_STREET})\s*,\s*(?:([A-Z][\w\s'-]*?(?:District|County))\s*,\s*)?([A-Z][a-z'-]+(?:\s[A-Z][a-z'-]+)?)`,
);

/** The next place word after a comma: ", Hangzhou", ", Xi'an" (not ", Order 2024…", nor ", I'll"). */
const EN_PLACE_AFTER = /^\s*,\s*([A-Z][a-z]+(?:['-][a-z]+)?(?:\s[A-Z][a-z]+(?:['-][a-z]+)?)?)\b(?!\s*\d)/;

function englishAddress(text: string): Partial<Record<AddressPart, string>> {
  const m = text.match(EN_ADDRESS);
  if (!m) return {};
  const out: Partial<Record<AddressPart, string>> = { detail: m[1]!.trim(), city: m[3]! };
  if (m[2]) out.district = m[2].trim();
  let after = text.slice(m.index! + m[0].length);
  // "18 Jiangnan Ave, Binjiang, Hangzhou": a district without its word, then the city (not a province).
  const [written, city] = after.match(EN_PLACE_AFTER) ?? [];
  const cityNext = city && !PROVINCES_EN.has(city) && !NOT_PLACES.has(city.split(' ')[0]!);
  if (!out.district && cityNext && !MUNICIPALITIES_EN.has(m[3]!)) {
    [out.district, out.city] = [m[3]!, city];
    after = after.slice(written!.length);
  }
  if (MUNICIPALITIES_EN.has(out.city!)) out.province = out.city!;
  const province = after.match(EN_PROVINCE_AFTER)?.[1];
  if (province && PROVINCES_EN.has(province) && !out.province) out.province = province;
  return out;
}

/** A place word of an English address: "Shenzhen", "Inner Mongolia", "Nanshan District". */
const EN_PLACE = String.raw`[A-Z][a-z]+(?:\s[A-Z][a-z]+)?(?:\s(?:Province|City|District|County))?`;
/** Largest first, as Chinese addresses are written: "Shenzhen, Guangdong, Nanshan, Room 1203, 66 Keyuan Rd". */
const EN_LARGEST_FIRST = new RegExp(String.raw`\b(${EN_PLACE}(?:\s*,\s*${EN_PLACE}){1,3})\s*,\s*(${EN_STREET}\b\.?)`);

/**
 * Places before the street, largest first: a province by its name, a municipality as province and city, the others
 * by their order (the city, then the district) or their own word ("… District").
 */
function englishLargestFirst(text: string): Partial<Record<AddressPart, string>> {
  const m = text.match(EN_LARGEST_FIRST);
  if (!m) return {};
  const out: Partial<Record<AddressPart, string>> = { detail: m[2]!.trim() };
  for (const place of m[1]!.split(/\s*,\s*/)) {
    const name = place.replace(/\s(?:Province|City)$/, '');
    if (PROVINCES_EN.has(name) && !out.province) out.province = name;
    else if (MUNICIPALITIES_EN.has(name) && !out.city) out.province = out.city = name;
    else if (/\s(?:District|County)$/.test(place) || (out.city && !out.district)) out.district = place;
    else if (!out.city) out.city = name;
    else return {};
  }
  return out.city || out.district ? out : {};
}

/**
 * The address object for `schema` in `text` (the request with the values taken elsewhere blanked), given the phone
 * number already assigned to its phone sub-property; the receiver's name is read in `whole` (the request as
 * written), where that phone still stands.
 */
export function extractAddress(
  text: string,
  schema: PropertySchema,
  phone?: string,
  whole: string = text,
): Record<string, string> | undefined {
  const parts = addressParts(schema);
  if (!parts) return undefined;
  const found = { ...chineseAddress(text) };
  if (!found.detail) Object.assign(found, englishLargestFirst(text));
  if (!found.detail) Object.assign(found, englishAddress(text));
  if (phone) found.receiver_phone = phone;
  const name = receiverName(whole, phone);
  if (name) found.receiver_name = name;
  const out: Record<string, string> = {};
  for (const [prop, part] of parts) if (found[part]) out[prop] = found[part]!;
  return Object.keys(out).length > 0 ? out : undefined;
}
