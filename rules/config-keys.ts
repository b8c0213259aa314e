/** Keys bootstrapped from `API_KEYS`: comma-separated `tenant:scope+scope:key` entries. Pure parsing. */
import { hashSecret } from './ids';
import { parseApiKey, SCOPE_PATTERN, TENANT_PATTERN } from './api-key';
import { proofPublicKey } from './key-proof';

export interface ConfigKey {
  key_id: string;
  secret_hash: string;
  /** The public half of the key's proof key (rules/key-proof.ts): config keys always prove bodies. */
  proof_public_key: string;
  tenant: string;
  scopes: string[];
}

/** The keys of `API_KEYS`, or the first problem found (never echoing a key). */
export function parseConfigKeys(text: string): { keys: ConfigKey[] } | { problem: string } {
  const keys: ConfigKey[] = [];
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const [index, entry] of entries.entries()) {
    const [tenant = '', scopeList = '', key = '', ...rest] = entry.split(':');
    const where = `entry ${index + 1}`;
    if (rest.length > 0 || !key) return { problem: `${where} must read tenant:scope+scope:key` };
    if (!TENANT_PATTERN.test(tenant)) return { problem: `${where}: "${tenant}" is not a tenant name` };
    const scopes = scopeList.split('+').filter(Boolean);
    if (scopes.length === 0 || !scopes.every((s) => SCOPE_PATTERN.test(s)))
      return { problem: `${where}: invalid scopes "${scopeList}"` };
    const parsed = parseApiKey(key);
    if (!parsed) return { problem: `${where}: the key is not of the form rk_<12 hex>_<43 base64url>` };
    if (keys.some((k) => k.key_id === parsed.keyId))
      return { problem: `${where}: key id ${parsed.keyId} appears twice` };
    keys.push({
      key_id: parsed.keyId,
      secret_hash: hashSecret(parsed.secret),
      proof_public_key: proofPublicKey(parsed.secret),
      tenant,
      scopes,
    });
  }
  return { keys };
}

/** The `API_KEYS` entry for one key. */
export function configKeyEntry(tenant: string, scopes: string[], key: string): string {
  return `${tenant}:${scopes.join('+')}:${key}`;
}
