/**
 * `npm run new-key -- [tenant] [scope+scope]`: prints a fresh API key and its `API_KEYS` entry, for bootstrapping
 * a deployment (keys made through the api need a key already). Nothing is stored: put the entry in API_KEYS.
 */
import { newApiKey } from '../rules/api-key';
import { configKeyEntry, parseConfigKeys } from '../rules/config-keys';

const [tenant = 'default', scopes = 'admin+metrics'] = process.argv.slice(2);
const { key } = newApiKey();
const entry = configKeyEntry(tenant, scopes.split('+'), key);
const checked = parseConfigKeys(entry);
if ('problem' in checked) {
  console.error(`new-key: ${checked.problem}`);
  process.exit(2);
}
console.log(`key      ${key}\nAPI_KEYS ${entry}`);
