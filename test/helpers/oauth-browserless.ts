/**
 * A user's trip through the test provider's login and consent pages (test/helpers/oidc-provider.ts), by plain HTTP
 * with a cookie jar — the steps a browser would take, for tests that need a user's authorization code without one.
 */

/** Follows `start` through login (as `login`) and consent to the client's redirect URI; that URL, with its `code`. */
export async function authorizeAs(start: URL, login: string, redirectPrefix: string): Promise<URL> {
  const cookies = new Map<string, string>();
  const call = async (url: URL, init: RequestInit = {}) => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return response;
  };
  let url = start;
  for (let step = 0; step < 20; step++) {
    if (url.href.startsWith(redirectPrefix)) return url;
    const response = await call(url);
    const location = response.headers.get('location');
    if (location) {
      url = new URL(location, url);
      continue;
    }
    const page = await response.text();
    if (response.status !== 200) throw new Error(`${url.href} answered ${response.status}: ${page.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1];
    if (!action || !prompt) throw new Error(`no login or consent form at ${url.href}: ${page.slice(0, 300)}`);
    const form = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login, password: 'any' } : {}) });
    const submitted = await call(new URL(action, url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const next = submitted.headers.get('location');
    if (!next) throw new Error(`submitting ${prompt} at ${action} answered ${submitted.status} without a redirect`);
    url = new URL(next, url);
  }
  throw new Error('the authorization did not reach the redirect URI in 20 steps');
}
