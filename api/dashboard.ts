/**
 * The operator dashboard served by the api at `/dashboard`: agents with state and circuit, recent messages, recent
 * chains, one message's attempts, one trace's chain, one chain's steps as a graph (docs/chains.md). One self-contained page (no external assets: the api may run offline)
 * that reads the public API; every value is inserted as text, never as HTML. The page itself is public; its data
 * calls send the API key the operator types in, or — where an issuer and AUTH_OIDC_DASHBOARD_CLIENT_ID are set — the
 * access token of the operator's sign-in with the identity provider (authorization code + PKCE, in the page: the
 * gateway keeps no session). Either is kept in sessionStorage: gone when the tab closes.
 */

/** How the page signs in with the identity provider: a public client of `issuer`, back to `redirect_uri`. */
export interface DashboardSignIn {
  /** The issuer's OpenID Connect discovery document. */
  discovery_url: string;
  client_id: string;
  redirect_uri: string;
  /** The resource (RFC 8707) the token is for: the gateway's audience. */
  resource: string;
}

/** JSON safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The page's style: states coloured green (done well), red (failed) or amber (under way). */
const STYLE = `<style>
  body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1b1f24; }
  h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 1.6rem; }
  table { border-collapse: collapse; min-width: 60%; } td, th { padding: .25rem .7rem; border-bottom: 1px solid #ddd; text-align: left; font-size: .9rem; }
  .processed, .online, .closed { color: #1a7f37; } .failed, .rejected, .expired, .offline, .open { color: #cf222e; }
  .delivering, .delivered, .routing, .accepted, .busy, .half_open, .draining { color: #9a6700; }
  .completed, .compensated { color: #1a7f37; } .cancelled { color: #cf222e; } .running, .compensating, .pending, .skipped { color: #9a6700; }
  #chain svg text { font-size: 12px; } #chain svg rect { fill: #f6f8fa; stroke-width: 2; }
  a { cursor: pointer; color: #0969da; } code { font-size: .85rem; } #detail { margin-top: 1rem; } #attempts { margin-top: .6rem; }
</style>`;

/** The key form and the tables the script fills: router, agents, messages, chains, one chain, one message. */
const TABLES = `<form id="login"><label>API key (read scope) <input id="api-key" type="password" autocomplete="off" size="60"></label> <button id="use-key" type="submit">Use key</button> <button id="forget-key" type="button">Forget</button></form>
<p id="auth" class="failed"></p>
<h2>Router</h2><p id="router"></p>
<h2>Agents</h2><table id="agents"><thead><tr><th>name</th><th>agent id</th><th>state</th><th>instances</th><th>capabilities</th></tr></thead><tbody></tbody></table>
<h2>Recent messages</h2><table id="messages"><thead><tr><th>message id</th><th>state</th><th>agent</th><th>started</th><th>chain</th></tr></thead><tbody></tbody></table>
<h2>Recent chains</h2><table id="chains"><thead><tr><th>chain id</th><th>state</th><th>steps</th><th>started</th></tr></thead><tbody></tbody></table>
<h2>Chain</h2><form id="chain-form"><label>chain id <input id="chain-id" size="40"></label> <button type="submit">Show</button></form><div id="chain"></div>
<div id="detail"></div>
`;

/** Script: building elements as text (never HTML), and where the credential is kept. */
const SCRIPT_HELPERS = `const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; };
const row = (cells) => { const tr = el('tr'); for (const c of cells) { const td = el('td'); td.append(c instanceof Node ? c : el('span', c)); tr.append(td); } return tr; };
const KEY = 'agent-reach-api-key';
`;

/** Script: reading the API with the kept credential; a refusal is an AuthError. */
const SCRIPT_FETCH = `const PKCE = 'agent-reach-pkce';
class AuthError extends Error {}
const get = async (path) => {
  const response = await fetch(path, { headers: { authorization: 'Bearer ' + (sessionStorage.getItem(KEY) ?? '') } });
  const body = await response.json();
  if (response.status === 401 || response.status === 403) throw new AuthError(body.error.code + ': ' + body.error.message);
  return body;
};
const showAuth = (text) => { document.querySelector('#auth').textContent = text; };

`;

/** Script: the agents, router, messages and chains tables, one message's attempts and routing, one trace. */
const SCRIPT_TABLES = `async function showAgents() {
  const { items } = await get('/v1/agents?limit=100');
  const body = document.querySelector('#agents tbody'); body.replaceChildren();
  for (const a of items) {
    const instances = a.instances.map((i) => i.instance_id + ' ' + i.state + (i.online ? '' : ' (offline)')).join(', ');
    body.append(row([a.name, el('code', a.agent_id), el('span', a.online ? 'online' : 'offline', a.online ? 'online' : 'offline'), instances, a.capabilities.map((c) => c.name).join(', ')]));
  }
}

async function showRouter() {
  const r = await get('/v1/router/status');
  const fit = (f) => f ? 'accept ' + f.accept.toFixed(3) + ', escalate ' + f.escalate.toFixed(3) + (f.pooled ? ' (pooled)' : '') : '—';
  const head = (h) => 'revision ' + h.revision + ', ' + h.capabilities + ' capabilities' + (h.ready_at ? ', ready since ' + new Date(h.ready_at).toLocaleTimeString() : ', changed ' + new Date(h.changed_at).toLocaleTimeString());
  const parts = ['head ' + r.state + ' (' + r.provider + ')'];
  if (r.serving) parts.push('deciding: ' + head(r.serving) + '; thresholds same language ' + fit(r.serving.calibration?.same_language) + ', cross-lingual ' + fit(r.serving.calibration?.cross_lingual));
  if (r.training) parts.push('training: ' + head(r.training));
  if (r.error) parts.push('error: ' + r.error);
  if (r.cards?.few_examples.count) parts.push(r.cards.few_examples.count + ' of ' + r.cards.capabilities + ' capabilities with fewer than ' + r.cards.few_examples.under + ' examples (fewest: ' + r.cards.few_examples.capabilities.slice(0, 3).map((c) => c.capability + ' ' + c.examples).join(', ') + ')');
  const p = document.querySelector('#router'); p.textContent = parts.join(' · '); p.className = r.state === 'ready' ? 'online' : r.state === 'failed' ? 'failed' : '';
}

async function showMessages() {
  const { items } = await get('/v1/messages?limit=20');
  const body = document.querySelector('#messages tbody'); body.replaceChildren();
  for (const m of items) {
    const link = el('a', m.message_id); link.dataset.message = m.message_id; link.onclick = () => showMessage(m.message_id);
    // A chain's step: <chain_id>:<step_id>[:compensate]; its chain is one click away.
    const chainId = m.message_id.includes(':') ? m.message_id.split(':')[0] : undefined;
    const chainLink = chainId ? el('a', 'chain ' + chainId) : '';
    if (chainId) chainLink.onclick = () => showChain(chainId);
    body.append(row([link, el('span', m.state, m.state), el('code', m.agent_id), new Date(m.started_at).toLocaleTimeString(), chainLink]));
  }
}

async function showChains() {
  const { items } = await get('/v1/chains?limit=20');
  const body = document.querySelector('#chains tbody'); body.replaceChildren();
  for (const c of items) {
    const link = el('a', c.chain_id); link.dataset.chain = c.chain_id; link.onclick = () => showChain(c.chain_id);
    const done = c.steps.filter((s) => s.state === 'completed').length;
    body.append(row([link, el('span', c.state, c.state), done + ' of ' + c.steps.length + ' completed', new Date(c.started_at).toLocaleTimeString()]));
  }
}

async function showMessage(id) {
  const s = await get('/v1/messages/' + encodeURIComponent(id));
  const detail = document.querySelector('#detail'); detail.replaceChildren();
  detail.append(el('h2', 'Message ' + s.message_id));
  detail.append(el('p', 'state: ' + s.state + (s.reason ? ' — ' + s.reason.code + ': ' + s.reason.message : ''), s.state));
  const trace = el('a', 'trace ' + s.trace_id); trace.onclick = () => showTrace(s.trace_id); detail.append(trace);
  const attempts = el('table'); attempts.id = 'attempts';
  attempts.append(row(['attempt', 'outcome', 'instance', 'HTTP', 'latency ms', 'error']));
  for (const a of s.attempts) attempts.append(row([a.attempt, el('span', a.outcome, a.outcome), a.instance_id ?? '', a.http_status ?? '', a.latency_ms, a.error ?? '']));
  detail.append(attempts);
  if (s.routing) {
    const r = s.routing.explanation;
    detail.append(el('h3', 'Routing: decided by ' + s.routing.decided_by + ' (' + s.routing.provider + ', threshold ' + r.threshold + ')'));
    const candidates = el('table'); candidates.id = 'routing';
    candidates.append(row(['candidate', 'match', 'semantic', 'rules', 'eligible']));
    for (const c of r.candidates) candidates.append(row([el('code', c.key), c.match, c.semantic, c.rules.join(', '), c.eligible ? 'yes' : (c.reason ?? 'no')]));
    detail.append(candidates);
    if (s.params) detail.append(el('pre', 'params ' + JSON.stringify(s.params)));
  }
  if (s.result !== undefined) detail.append(el('pre', JSON.stringify(s.result, null, 2)));
}

async function showTrace(traceId) {
  const t = await get('/v1/traces/' + traceId);
  const detail = document.querySelector('#detail');
  const chain = el('table'); chain.id = 'trace';
  chain.append(row(['message', 'after', 'state', 'agent', 'capability', 'ms']));
  for (const m of t.messages ?? []) chain.append(row([m.message_id, m.parent_message_id ?? '', el('span', m.state, m.state), el('code', m.agent_id), m.capability, m.duration_ms ?? '']));
  detail.append(el('h2', 'Trace ' + traceId), chain);
}

`;

/** Script: one chain's steps as a graph. */
const SCRIPT_CHAIN_GRAPH = `const STATE_COLOURS = { completed: '#1a7f37', compensated: '#1a7f37', failed: '#cf222e', cancelled: '#cf222e', running: '#9a6700', pending: '#8c959f', skipped: '#8c959f' };
const svgEl = (tag, attrs, text) => { const e = document.createElementNS('http://www.w3.org/2000/svg', tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v)); if (text !== undefined) e.textContent = String(text); return e; };

/** The chain's steps as boxes in columns by depth (the longest path of after before them), arrows for after. */
async function showChain(id) {
  const c = await get('/v1/chains/' + encodeURIComponent(id));
  const view = document.querySelector('#chain'); view.replaceChildren();
  if (!c.steps) { view.append(el('p', c.error ? c.error.code + ': ' + c.error.message : 'no chain ' + id, 'failed')); return; }
  view.append(el('p', 'chain ' + c.chain_id + ': ' + c.state + (c.error ? ' — ' + c.error.code + (c.error.step ? ' at ' + c.error.step : '') + ': ' + c.error.message : ''), c.state));
  const byId = new Map(c.steps.map((s) => [s.id, s]));
  const depth = new Map();
  const depthOf = (s) => { if (!depth.has(s.id)) { depth.set(s.id, 0); depth.set(s.id, 1 + Math.max(-1, ...(s.after ?? []).map((a) => byId.has(a) ? depthOf(byId.get(a)) : 0))); } return depth.get(s.id); };
  const rows = new Map(); const place = new Map();
  for (const s of c.steps) { const d = depthOf(s); const r = rows.get(d) ?? 0; rows.set(d, r + 1); place.set(s.id, { x: 10 + d * 200, y: 10 + r * 80 }); }
  const width = 10 + (Math.max(...depth.values()) + 1) * 200, height = 10 + Math.max(...rows.values()) * 80;
  const svg = svgEl('svg', { width, height, viewBox: '0 0 ' + width + ' ' + height });
  const defs = svgEl('defs', {}); const marker = svgEl('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' });
  marker.append(svgEl('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#57606a' })); defs.append(marker); svg.append(defs);
  for (const s of c.steps) for (const a of s.after ?? []) {
    const from = place.get(a), to = place.get(s.id); if (!from || !to) continue;
    svg.append(svgEl('line', { x1: from.x + 160, y1: from.y + 30, x2: to.x, y2: to.y + 30, stroke: '#57606a', 'marker-end': 'url(#arrow)' }));
  }
  for (const s of c.steps) {
    const p = place.get(s.id); const g = svgEl('g', { 'data-step': s.id, cursor: 'pointer' });
    g.append(svgEl('rect', { x: p.x, y: p.y, width: 160, height: 60, rx: 6, stroke: STATE_COLOURS[s.state] ?? '#57606a' }));
    g.append(svgEl('text', { x: p.x + 8, y: p.y + 18 }, s.id));
    g.append(svgEl('text', { x: p.x + 8, y: p.y + 35, fill: STATE_COLOURS[s.state] ?? '#57606a' }, s.state));
    if (s.compensation) g.append(svgEl('text', { x: p.x + 8, y: p.y + 52 }, '↩ ' + s.compensation.state));
    g.onclick = () => showMessage(s.message_id);
    svg.append(g);
  }
  view.append(svg);
}
document.querySelector('#chain-form').onsubmit = (event) => { event.preventDefault(); showChain(document.querySelector('#chain-id').value.trim()).catch((e) => showAuth(e.message)); };

`;

/** Script: signing in with the identity provider, and who is signed in. */
const SCRIPT_SIGN_IN = `// Sign-in with the identity provider: authorization code + PKCE (S256), the token kept like a key.
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/[+]/g, '-').replace(/[/]/g, '_').replace(/=+$/, '');
const providerMetadata = async () => (await fetch(SIGN_IN.discovery_url)).json();
async function startSignIn() {
  const meta = await providerMetadata();
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem(PKCE, JSON.stringify({ verifier, state }));
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const url = new URL(meta.authorization_endpoint);
  url.search = new URLSearchParams({ response_type: 'code', client_id: SIGN_IN.client_id, redirect_uri: SIGN_IN.redirect_uri, scope: 'openid read', state, code_challenge: challenge, code_challenge_method: 'S256', resource: SIGN_IN.resource }).toString();
  location.assign(url.href);
}
async function finishSignIn() {
  const params = new URLSearchParams(location.search);
  if (!SIGN_IN || (!params.has('code') && !params.has('error'))) return;
  history.replaceState(null, '', location.pathname);
  const pending = JSON.parse(sessionStorage.getItem(PKCE) ?? 'null');
  sessionStorage.removeItem(PKCE);
  if (params.has('error')) throw new AuthError('sign-in failed: ' + params.get('error') + ' ' + (params.get('error_description') ?? ''));
  if (!pending || params.get('state') !== pending.state) throw new AuthError('sign-in failed: the answer is not for this sign-in (state)');
  const meta = await providerMetadata();
  const form = { grant_type: 'authorization_code', code: params.get('code'), redirect_uri: SIGN_IN.redirect_uri, client_id: SIGN_IN.client_id, code_verifier: pending.verifier, resource: SIGN_IN.resource };
  const response = await fetch(meta.token_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  const body = await response.json();
  if (!response.ok || !body.access_token) throw new AuthError('sign-in failed: ' + (body.error_description ?? body.error ?? response.status));
  sessionStorage.setItem(KEY, body.access_token);
}
const showWho = () => {
  const credential = sessionStorage.getItem(KEY) ?? '';
  let who = '';
  if (credential.split('.').length === 3) {
    try { who = 'signed in as ' + JSON.parse(atob(credential.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))).sub; } catch { who = ''; }
  }
  document.querySelector('#who').textContent = who;
};
document.querySelector('#sign-in').onclick = () => startSignIn().catch((e) => showAuth('sign-in failed: ' + e.message));

`;

/** Script: the key form, and the refresh every 5 s. */
const SCRIPT_REFRESH = `const refresh = () => {
  showWho();
  if (!sessionStorage.getItem(KEY)) return showAuth(SIGN_IN ? 'Sign in, or enter an API key, to see the agents and messages of its tenant.' : 'Enter an API key to see the agents and messages of its tenant.');
  return Promise.all([showRouter(), showAgents(), showMessages(), showChains()]).then(() => showAuth('')).catch((e) => e instanceof AuthError ? showAuth('The key or token was refused (' + e.message + ')') : console.error(e));
};
document.querySelector('#login').onsubmit = (event) => { event.preventDefault(); sessionStorage.setItem(KEY, document.querySelector('#api-key').value.trim()); document.querySelector('#api-key').value = ''; refresh(); };
document.querySelector('#forget-key').onclick = () => { sessionStorage.removeItem(KEY); document.querySelector('#agents tbody').replaceChildren(); document.querySelector('#messages tbody').replaceChildren(); document.querySelector('#chains tbody').replaceChildren(); refresh(); };
finishSignIn().catch((e) => showAuth(e.message)).then(refresh); setInterval(refresh, 5000);
`;

export function dashboardPage(signIn?: DashboardSignIn): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agent-Reach</title>
${STYLE}</head>
<body>
<h1>Agent-Reach</h1>
<p id="sign-in-bar"${signIn ? '' : ' hidden'}><button id="sign-in" type="button">Sign in with the identity provider</button> <span id="who"></span></p>
${TABLES}<script>
${SCRIPT_HELPERS}const SIGN_IN = ${scriptJson(signIn ?? null)};
${SCRIPT_FETCH}${SCRIPT_TABLES}${SCRIPT_CHAIN_GRAPH}${SCRIPT_SIGN_IN}${SCRIPT_REFRESH}</script>
</body></html>`;
}
