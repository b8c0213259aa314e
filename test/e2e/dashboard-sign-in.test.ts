/**
 * The dashboard's sign-in with an identity provider, in a real browser (Debian's Chromium, driven by playwright-core):
 * a real `oidc-provider` in this process, its login and consent pages filled in the browser, authorization code +
 * PKCE from the page, and the dashboard then reading the tenant's agents with the user's access token.
 * `.ci/run` installs Chromium; without it (CHROMIUM_PATH, or `chromium` on PATH) this test skips, saying what to install.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { acceptAndConfirm, startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent } from '../helpers/http';
import { startTestIdp, type TestIdp } from '../helpers/oidc-provider';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';
import { chromiumBinary, skipUnlessInstalled } from '../helpers/system-packages';

const CLIENT_ID = 'reach-dashboard';
let servers: TestServers;
let system: TestSystem;
let idp: TestIdp;
let agent: FakeAgent;
let browser: Browser;

describe('dashboard sign-in', { skip: skipUnlessInstalled([chromiumBinary]) }, () => {
  before(async () => {
    servers = await startTestServers();
    idp = await startTestIdp({ users: { alice: { tenant: 'default', groups: ['ops'] } } });
    system = await startSystem(servers, { AUTH_OIDC_ISSUER: idp.issuer, AUTH_OIDC_DASHBOARD_CLIENT_ID: CLIENT_ID });
    await idp.registerPublicClient(CLIENT_ID, `${system.baseUrl}/dashboard`);
    agent = await startFakeAgent(acceptAndConfirm);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await agent?.stop();
    await system?.stop();
    await idp?.stop();
    await servers?.stop();
  });

  it("dashboard sign-in - the operator signs in at the provider (code + PKCE) and sees the agents of the token's tenant", async () => {
    const registered = await registerAgent(system.baseUrl, agent.url, { name: 'sign-in-echo' });
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${system.baseUrl}/dashboard`);
    await page.locator('#auth', { hasText: 'Sign in, or enter an API key' }).waitFor();
    assert.equal(await page.locator('#agents tbody tr').count(), 0, 'no data before signing in');

    const requests: URL[] = [];
    page.on('request', (r) => requests.push(new URL(r.url())));
    await page.click('#sign-in');
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.fill('input[name="login"]', 'alice');
    await page.fill('input[name="password"]', 'any');
    await page.click('button[type="submit"]');
    await page.locator('button', { hasText: 'Continue' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${system.baseUrl}/dashboard`));

    await page.locator('#agents', { hasText: 'sign-in-echo' }).waitFor();
    assert.match(await page.locator('#agents').innerText(), new RegExp(registered.agent_id));
    assert.equal(await page.locator('#who').innerText(), 'signed in as alice');
    assert.equal(await page.locator('#auth').innerText(), '');
    assert.equal(new URL(page.url()).search, '', 'the code is gone from the address bar');
    // What the page asked the provider for: PKCE (S256), for the gateway's resource.
    const authorize = requests.find((url) => url.origin === idp.issuer && url.searchParams.has('code_challenge'));
    assert.ok(authorize, requests.map(String).join('\n'));
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('resource'), system.baseUrl);
    const token = await page.evaluate<string | null>("sessionStorage.getItem('agent-reach-api-key')");
    const claims = JSON.parse(Buffer.from(token!.split('.')[1]!, 'base64url').toString()) as {
      aud: string;
      scope: string;
      tenant: string;
    };
    assert.equal(claims.aud, system.baseUrl);
    assert.equal(claims.tenant, 'default');
    assert.match(claims.scope, /\bread\b/);
  });
});
