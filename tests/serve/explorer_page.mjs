// Drives the explorer page in Debian's chromium (headless, puppeteer-core from
// serve/web/node_modules) as a user would, and prints what it saw as one JSON
// line; the Catch2 test (page_test.cpp) checks it against counts of its own.
// Usage: node explorer_page.mjs URL WEB_ROOT CHROMIUM OUT_DIR CQL
import {createRequire} from 'node:module';
import path from 'node:path';

const [url, webRoot, chromium, outDir, cql] = process.argv.slice(2);
const require = createRequire(path.join(webRoot, 'package.json'));
const puppeteer = require('puppeteer-core');

const seen = {
  steps: [],
  console_errors: []
};
const rows = (page) => page.$$eval(
    '#moves tbody tr',
    (trs) => trs.map(
        (tr) =>
            ({uci: tr.dataset.uci, san: tr.cells[0].textContent, games: Number(tr.cells[1].textContent)})));
let shots = 0;
const shot = (name) => path.join(outDir, `${String(++shots).padStart(2, '0')}-${name}.png`);
const fen = (page) => page.$eval('#fen', (el) => el.value);
const deadline = {
  timeout: 30000
};

async function step(page, name) {
  await page.screenshot({path: shot(name)});
  seen.steps.push({
    name,
    fen: await fen(page),
    rows: await rows(page),
    ply: await page.evaluate(() => window.explorer.state.ply)
  });
}

// Waits until the table shows the moves of the position whose FEN starts with prefix.
async function tableFor(page, fenPrefix) {
  await page.waitForFunction(
      (prefix) => document.querySelector('#fen').value.startsWith(prefix) &&
          document.querySelectorAll('#moves tbody tr').length > 0 &&
          document.querySelector('#status').textContent === '' && window.explorer.state.request > 0,
      deadline, fenPrefix);
  // the answer of the last request is drawn when no request is pending
  await page.waitForNetworkIdle({idleTime: 200, timeout: 30000});
}

async function squareCenter(page, square) {
  const box = await (await page.$('#board')).boundingBox();
  const file = square.charCodeAt(0) - 97, rank = Number(square[1]) - 1;  // white at the bottom
  return {x: box.x + (file + 0.5) * (box.width / 8), y: box.y + (7 - rank + 0.5) * (box.height / 8)};
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
  await tableFor(page, 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w');
  await step(page, 'start');

  await page.click('#moves tbody tr[data-uci="e2e4"]');
  await tableFor(page, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b');
  await step(page, 'after-e4');

  // Drag the knight g8 to f6 with the mouse.
  const from = await squareCenter(page, 'g8'), to = await squareCenter(page, 'f6');
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, {steps: 5});
  await page.mouse.move(to.x, to.y, {steps: 5});
  await page.mouse.up();
  await tableFor(page, 'rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w');
  await step(page, 'dragged-nf6');

  await page.keyboard.press('ArrowLeft');
  await tableFor(page, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b');
  await step(page, 'back');

  // A top game: the page loads the whole game, standing at this position.
  seen.top_game = await page.$eval('#top-games a', (a) => a.dataset.id);
  await page.click('#top-games a');
  await page.waitForFunction(() => !document.querySelector('#game-view').hidden, deadline);
  await page.waitForNetworkIdle({idleTime: 200, timeout: 30000});
  seen.top_game_view = await page.evaluate(() => ({
                                             fen: document.querySelector('#fen').value,
                                             ply: window.explorer.state.ply,
                                             plies: window.explorer.state.line.length,
                                             text: document.querySelector('#game-view').textContent,
                                           }));
  await page.screenshot({path: shot('top-game')});
  await page.keyboard.press('ArrowLeft');  // back to the start, for the phone width
  await page.keyboard.press('ArrowRight');

  // A phone's width: the page still shows the board and the table.
  await page.setViewport({width: 390, height: 844});
  await page.screenshot({path: shot('phone-width'), fullPage: true});
  seen.phone = await page.evaluate(() => ({
                                     board: document.querySelector('#board').getBoundingClientRect().width,
                                     table: document.querySelector('#moves').getBoundingClientRect().width,
                                     page: document.documentElement.scrollWidth,
                                   }));
  await page.setViewport({width: 1280, height: 900});

  await page.$eval('#cql', (el) => {
    el.value = '';
  });
  await page.type('#cql', cql);
  await page.click('#cql-form button');
  await page.waitForFunction(() => {
    const out = document.querySelector('#cql-result');
    return out.querySelector('.cql-hit, .error') !== null || /shown/.test(out.textContent);
  }, deadline);
  seen.cql = await page.$eval(
      '#cql-result', (out) => ({
                       text: out.textContent,
                       hits: [...out.querySelectorAll('.cql-hit')].map((a) => a.textContent),
                       error: out.querySelector('.error') ? out.querySelector('.error').textContent : null,
                     }));
  await page.screenshot({path: shot('cql')});
  if (seen.cql.hits.length) {
    const before = await fen(page);
    await page.click('.cql-hit');
    await page.waitForFunction((b) => document.querySelector('#fen').value !== b, deadline, before);
    await page.waitForNetworkIdle({idleTime: 200, timeout: 30000});
    await step(page, 'cql-result');
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(seen));
