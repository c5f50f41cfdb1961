import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { GATEWAY_URL } from './support';

/**
 * The reference page in a real headless Chromium (Debian's `chromium`; scripts/test.sh installs it, or set
 * CHROMIUM_PATH): Swagger UI renders the gateway's own OpenAPI document under the page's strict CSP.
 */
const CHROMIUM =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);

describe('the API reference page (/docs)', () => {
  let browser: Browser;

  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('no Chromium: apt-get install chromium, or set CHROMIUM_PATH');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the operations of the document, and nothing breaks the CSP', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));

    // Generous waits: parsing the 1.7 MB bundle takes a while on a busy 2-core CI machine.
    const response = await page.goto(`${GATEWAY_URL}/docs`, {
      waitUntil: 'domcontentloaded',
      timeout: 90_000,
    });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");

    // A known operation, rendered from /api/v1/openapi.json by the page's scripts.
    const listStories = page.getByText('List stories', { exact: true });
    await listStories.waitFor({ state: 'visible', timeout: 90_000 });
    await expect(page.title()).resolves.toBe('Flowboard API reference');
    expect(
      await page.getByText('/api/v1/projects/{projectId}/stories', { exact: true }).count(),
    ).toBeGreaterThan(0);

    // Expanding it shows its parameters (the page is interactive, not just painted).
    await listStories.click();
    await page
      .locator('.parameters')
      .getByText('pageSize', { exact: true })
      .first()
      .waitFor({ timeout: 30_000 });

    expect(problems.filter((p) => /content security policy/i.test(p))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 240_000);
});
