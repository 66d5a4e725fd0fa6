// Drives the explorer page's filter choices in Debian's chromium (headless,
// puppeteer-core from serve/web/node_modules) and prints what the move table
// showed after each click as one JSON line; page_test.cpp checks it against
// counts of its own. Usage: node filter_page.mjs URL WEB_ROOT CHROMIUM OUT_DIR
import {createRequire} from 'node:module';
import path from 'node:path';

const [url, webRoot, chromium, outDir] = process.argv.slice(2);
const require = createRequire(path.join(webRoot, 'package.json'));
const puppeteer = require('puppeteer-core');

const seen = {steps: [], console_errors: []};
const deadline = {timeout: 30000};

async function step(page, name) {
  // The answer of the last request is drawn when no request is pending.
  await page.waitForNetworkIdle({idleTime: 300, timeout: 30000});
  await page.screenshot({path: path.join(outDir, `filter-${seen.steps.length + 1}-${name}.png`)});
  seen.steps.push({
    name,
    rows: await page.$$eval(
        '#moves tbody tr', (trs) => trs.map((tr) => ({uci: tr.dataset.uci, games: Number(tr.cells[1].textContent)}))),
    pressed: await page.$$eval('#filter button[aria-pressed="true"]', (bs) => bs.map((b) => b.dataset.value)),
  });
}

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  protocolTimeout: 60000,
});
try {
  const page = await browser.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') seen.console_errors.push(m.text());
  });
  page.on('pageerror', (e) => seen.console_errors.push(String(e)));
  await page.setViewport({width: 1280, height: 900});
  await page.goto(url, {waitUntil: 'networkidle0', timeout: 30000});
  await page.waitForFunction(
      () => !document.querySelector('#filter').hidden && document.querySelectorAll('#moves tbody tr').length > 0,
      deadline);
  await step(page, 'start');
  await page.click('#filter-speeds button[data-value="blitz"]');
  await step(page, 'blitz');
  await page.click('#filter-ratings button[data-value="2200"]');  // chosen by the server's default: unchosen
  await step(page, 'blitz-all-ratings');
} finally {
  await browser.close();
}
console.log(JSON.stringify(seen));
