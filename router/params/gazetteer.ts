/**
 * Chinese provinces, cities and districts (GB/T 2260 names from the china-area-data package, MIT), with the short
 * forms people write ("浙江" for 浙江省, "杭州" for 杭州市).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const AREAS = require('china-area-data/data.json') as Record<string, Record<string, string>>;

export type Level = 'province' | 'city' | 'district';

export interface Place {
  level: Level;
  /** The official name: 浙江省, 杭州市, 余杭区. */
  full: string;
  /** The province it lies in (itself for a province). */
  province: string;
  /** The city it lies in, for districts; for a municipality's districts the municipality. */
  city?: string;
  /** 北京市, 上海市, 天津市, 重庆市 (and 香港, 澳门) are a province and a city at once. */
  municipality?: boolean;
}

/** Provinces that are one city too: the four municipalities, and Hong Kong and Macao (香港, 澳门). */
const MUNICIPALITY = new Set(['110000', '120000', '310000', '500000', '810000', '820000']);

/** Short forms that are also everyday words, never read as places on their own. */
const AMBIGUOUS_SHORT = new Set([
  '东方',
  '阿里',
  '中山',
  '吉林',
  '长治',
  '通化',
  '白山',
  '大同',
  '永安',
  '开平',
  '江山',
  '东港',
  '海门',
  '合作',
  '和平',
  '新城',
  '城区',
  '郊区',
  '矿区',
  '市辖区',
  '省直辖县级行政区划',
  '自治区直辖县级行政区划',
]);

function shortForm(full: string, level: Level): string | undefined {
  const short =
    level === 'province'
      ? full.replace(/(省|市|壮族自治区|回族自治区|维吾尔自治区|特别行政区|自治区)$/, '')
      : level === 'city'
        ? full
            .replace(/(市|地区|盟|自治州)$/, '')
            .replace(
              /(藏族|彝族|苗族|土家族|布依族|侗族|哈尼族|傣族|白族|景颇族|傈僳族|回族|哈萨克|蒙古|朝鲜族|壮族|羌族)+$/,
              '',
            )
        : full.replace(/(区|县|市|旗)$/, '');
  return short.length >= 2 && short !== full && !AMBIGUOUS_SHORT.has(short) ? short : undefined;
}

let index: Map<string, Place[]> | undefined;

function add(name: string, place: Place): void {
  const list = index!.get(name) ?? [];
  list.push(place);
  index!.set(name, list);
}

/** Every name (full and short) to the places it may mean. */
export function places(): Map<string, Place[]> {
  if (index) return index;
  index = new Map();
  for (const [pCode, province] of Object.entries(AREAS['86'] ?? {})) {
    const municipality = MUNICIPALITY.has(pCode);
    const pPlace: Place = {
      level: 'province',
      full: province,
      province,
      municipality,
      ...(municipality ? { city: province } : {}),
    };
    add(province, pPlace);
    const pShort = shortForm(province, 'province');
    if (pShort) add(pShort, pPlace);
    for (const [cCode, city] of Object.entries(AREAS[pCode] ?? {})) {
      const cityName = municipality ? province : city;
      if (!municipality && !AMBIGUOUS_SHORT.has(city)) {
        const cPlace: Place = { level: 'city', full: city, province };
        add(city, cPlace);
        const cShort = shortForm(city, 'city');
        if (cShort) add(cShort, cPlace);
      }
      for (const district of Object.values(AREAS[cCode] ?? {})) {
        if (AMBIGUOUS_SHORT.has(district)) continue;
        add(district, { level: 'district', full: district, province, city: cityName });
      }
    }
  }
  return index;
}

let districtsByCity: Map<string, string[]> | undefined;

/**
 * A district of `city` (its official name, e.g. 深圳市) written at the start of `text` without its 区/县 ("深圳南山
 * 科苑路…"): the short form is read only right after its own city, where it cannot be an everyday word.
 */
export function districtShortAt(text: string, city: string): { text: string; full: string } | undefined {
  if (!districtsByCity) {
    districtsByCity = new Map();
    for (const list of places().values())
      for (const place of list)
        if (place.level === 'district' && place.city) {
          const districts = districtsByCity.get(place.city) ?? [];
          if (!districts.includes(place.full)) districts.push(place.full);
          districtsByCity.set(place.city, districts);
        }
  }
  for (const full of districtsByCity.get(city) ?? []) {
    const short = full.replace(/(区|县|旗)$/, '');
    if (short.length >= 2 && short !== full && text.startsWith(short) && !text.startsWith(full))
      return { text: short, full };
  }
  return undefined;
}

export interface PlaceMention {
  text: string;
  start: number;
  end: number;
  candidates: Place[];
}

const MAX_NAME = 12;
/** A place name followed by these is part of a street or building name ("中山北路", "南京路"). */
const STREET_AFTER = /^[东南西北中]?(?:路|街|大道|大街|巷|弄|道|桥|广场|大厦|小区|花园|公园)/;

/** Place names in the text, longest first at each position, left to right, never overlapping. */
export function placesIn(text: string): PlaceMention[] {
  const names = places();
  const found: PlaceMention[] = [];
  for (let i = 0; i < text.length;) {
    let hit: PlaceMention | undefined;
    for (let len = Math.min(MAX_NAME, text.length - i); len >= 2; len--) {
      const name = text.slice(i, i + len);
      const candidates = names.get(name);
      if (candidates) {
        hit = { text: name, start: i, end: i + len, candidates };
        break;
      }
    }
    if (hit && !STREET_AFTER.test(text.slice(hit.end, hit.end + 3))) {
      found.push(hit);
      i = hit.end;
    } else {
      i++;
    }
  }
  return found;
}
